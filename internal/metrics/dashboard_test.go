package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/model"

	dto "github.com/prometheus/client_model/go"
)

// dashboardPath is the Grafana dashboard shipped over these metrics.
const dashboardPath = "../../docs/grafana-dashboard.json"

var metricName = regexp.MustCompile(`\bcorpusbot_[a-z0-9_]+`)

// expressions collects every "expr" string anywhere in a decoded JSON
// value (panel targets, rows' nested panels, annotations).
func expressions(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "expr" {
				*out = append(*out, s)
				continue
			}
			expressions(x, out)
		}
	case []any:
		for _, x := range v {
			expressions(x, out)
		}
	}
}

// exposes says whether a name an expression uses is one a scrape has: the
// family itself, or a histogram's _bucket, _sum or _count series.
func exposes(names map[string]dto.MetricType, used string) bool {
	if _, ok := names[used]; ok {
		return !strings.HasSuffix(used, "_bucket") // no family ends so
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(used, suffix); ok {
			if typ, exposed := names[base]; exposed && typ == dto.MetricType_HISTOGRAM {
				return true
			}
		}
	}
	return false
}

func TestDashboardUsesExposedNames(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s is not JSON: %v", dashboardPath, err)
	}
	var exprs []string
	expressions(dash, &exprs)
	if len(exprs) < 8 {
		t.Fatalf("%d expressions in the dashboard, want a panel each for the eight subjects", len(exprs))
	}
	names := exposedNames(t)
	used := map[string]bool{}
	for _, e := range exprs {
		found := metricName.FindAllString(e, -1)
		if len(found) == 0 {
			t.Errorf("expression %q uses no corpusbot_ metric", e)
		}
		for _, n := range found {
			used[n] = true
			if !exposes(names, n) {
				t.Errorf("expression %q uses %s, which the registry does not expose", e, n)
			}
		}
	}
	// The subjects the dashboard is for each have their series.
	for _, want := range []string{
		"corpusbot_requests_total", "corpusbot_not_modified_total", "corpusbot_sites_in_flight",
		"corpusbot_due_work", "corpusbot_posts", "corpusbot_round_duration_seconds_bucket",
		"corpusbot_store_write_seconds_bucket",
	} {
		if !used[want] {
			t.Errorf("no panel uses %s", want)
		}
	}
}

// TestExposesRejects checks the name check itself: a misspelt name, a
// _bucket of a counter, a bare _bucket.
func TestExposesRejects(t *testing.T) {
	names := exposedNames(t)
	for _, n := range []string{"corpusbot_request_total", "corpusbot_requests_total_bucket", "corpusbot_rounds_total_sum", "corpusbot_posts_count"} {
		if exposes(names, n) {
			t.Errorf("exposes(%q) = true", n)
		}
	}
	for _, n := range []string{"corpusbot_requests_total", "corpusbot_store_write_seconds_bucket", "corpusbot_round_duration_seconds_count"} {
		if !exposes(names, n) {
			t.Errorf("exposes(%q) = false", n)
		}
	}
	if names["corpusbot_store_write_seconds"] != dto.MetricType_HISTOGRAM {
		t.Error("corpusbot_store_write_seconds is not a histogram")
	}
}

// labelMatcher is a label matcher of a PromQL expression: the label, the
// operator and the value (an alternation of words for =~ and !~).
var labelMatcher = regexp.MustCompile(`\b([a-z_]+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)

// vocabulary is the words each label of the crawler's series may hold:
// the fetcher's (model.Purposes, model.Outcomes) and the code classes.
func vocabulary() map[string]map[string]bool {
	v := map[string]map[string]bool{"purpose": {}, "outcome": {}, "reason": {}, "code_class": {}}
	for _, p := range model.Purposes() {
		v["purpose"][string(p)] = true
	}
	for _, o := range model.Outcomes() {
		if o.Declined() {
			v["reason"][string(o)] = true
		} else {
			v["outcome"][string(o)] = true
		}
	}
	for _, c := range append(CodeClasses(), "1xx") {
		v["code_class"][c] = true
	}
	return v
}

// TestDashboardSpeaksTheVocabulary: a matcher on an outcome the fetcher
// never reports ("ok", "not_modified") selects nothing, or, negated,
// everything, as the old "Errors and refusals" panel did (324 of 324).
func TestDashboardSpeaksTheVocabulary(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	expressions(dash, &exprs)
	words := vocabulary()
	matchers := 0
	for _, e := range exprs {
		for _, m := range labelMatcher.FindAllStringSubmatch(e, -1) {
			known, ok := words[m[1]]
			if !ok {
				continue // a label of no fixed vocabulary (kind, op, state)
			}
			matchers++
			for _, w := range strings.Split(m[3], "|") {
				if !known[w] {
					t.Errorf("expression %q matches %s on %q, which no %s is", e, m[1], w, m[1])
				}
			}
		}
	}
	if matchers == 0 {
		t.Error("no matcher on outcome, reason, purpose or code_class in the dashboard: the check checked nothing")
	}
	// The check itself: the old panel's words are refused.
	for _, w := range []string{"ok", "not_modified"} {
		if words["outcome"][w] {
			t.Errorf("%q is an outcome word", w)
		}
	}
}

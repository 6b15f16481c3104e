package corpusout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestContractLines checks the contract's post line: its keys in the
// contract's order, the values those of the full line, one Write a line,
// HTML left unescaped, citations never null.
func TestContractLines(t *testing.T) {
	var full, brief bytes.Buffer
	fw, bw := NewJSONLines(&full), NewContractLines(&brief)
	writes := 0
	counting := NewContractLines(writerFunc(func(p []byte) (int, error) {
		writes++
		if bytes.Count(p, []byte("\n")) != 1 || !bytes.HasSuffix(p, []byte("\n")) {
			t.Errorf("write is not one line: %q", p)
		}
		return len(p), nil
	}))
	posts := samplePosts()
	for _, p := range posts {
		for _, w := range []*JSONLinesWriter{fw, bw, counting} {
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if writes != len(posts) {
		t.Errorf("%d writes for %d posts", writes, len(posts))
	}
	fullLines := strings.Split(strings.TrimSuffix(full.String(), "\n"), "\n")
	briefLines := strings.Split(strings.TrimSuffix(brief.String(), "\n"), "\n")
	if len(briefLines) != len(posts) {
		t.Fatalf("%d lines for %d posts", len(briefLines), len(posts))
	}
	// The contract (CONTRACT.md, export): these keys, in this order.
	wantKeys := []string{"url", "source", "title", "published", "lastmod", "state", "text_from", "text_bytes", "citations",
		"author", "language", "description", "site_name", "tags", "license", "image", "duplicate_of", "updated"}
	for i, line := range briefLines {
		if got := keysInOrder(t, line); strings.Join(got, ",") != strings.Join(wantKeys, ",") {
			t.Errorf("line %d: keys %v, want %v", i+1, got, wantKeys)
		}
		var got, want Post
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(fullLines[i]), &want); err != nil {
			t.Fatal(err)
		}
		want.Site, want.FirstSeen, want.Text = "", "", ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line %d:\n got %+v\nwant %+v", i+1, got, want)
		}
	}
	if !strings.Contains(briefLines[1], `"citations":[]`) || !strings.Contains(briefLines[1], `"published":""`) {
		t.Errorf("post without citations or dates: %s", briefLines[1])
	}
	if !strings.Contains(briefLines[2], "<b>&</b>") {
		t.Errorf("HTML escaped in %s", briefLines[2])
	}
}

// keysInOrder is the keys of the JSON object line in the order it has
// them.
func keysInOrder(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

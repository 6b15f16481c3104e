package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

const recordHost = "203.0.113.61"

// recordPost is a post line as the test reads it.
type recordPost struct {
	URL         string   `json:"url"`
	State       string   `json:"state"`
	Title       string   `json:"title"`
	Author      string   `json:"author"`
	Language    string   `json:"language"`
	Description string   `json:"description"`
	SiteName    string   `json:"site_name"`
	Tags        []string `json:"tags"`
	License     string   `json:"license"`
	Image       string   `json:"image"`
	DuplicateOf string   `json:"duplicate_of"`
	Updated     string   `json:"updated"`
	Text        string   `json:"text"`
}

const (
	hikeText = `<p>Am frühen Morgen sind wir von Wernigerode aufgebrochen und durch den dichten Fichtenwald in Richtung Brocken gewandert. Der Weg war steinig und an vielen Stellen noch feucht vom nächtlichen Regen, aber die Luft war klar und kühl.</p>
<p>Nach etwa drei Stunden erreichten wir die Baumgrenze und hatten einen weiten Blick über das ganze Mittelgebirge. Auf dem Gipfel gab es eine warme Suppe, und wir ruhten uns eine Weile in der Sonne aus, bevor wir den Abstieg begannen.</p>`
	breadText = `<p>Für ein gutes Roggenbrot braucht man vor allem Geduld. Der Sauerteig wird am Vorabend angesetzt und muss mindestens zwölf Stunden an einem warmen Ort ruhen, bevor er mit Mehl, Wasser und Salz zu einem festen Teig verknetet wird.</p>
<p>Danach formt man einen runden Laib, lässt ihn im Gärkorb noch einmal aufgehen und backt ihn im vorgeheizten Ofen bei hoher Hitze, bis die Kruste dunkel ist und der Boden beim Klopfen hohl klingt.</p>`
	changedText = `<p>Diese Wanderung haben wir im Herbst wiederholt, diesmal von Schierke aus und bei dichtem Nebel. Vom Gipfel sahen wir nichts, aber der Wald war voller Pilze und das Moos leuchtete in allen Farben, sodass sich der Weg trotzdem gelohnt hat.</p>
<p>Auf dem Rückweg kehrten wir in einer kleinen Hütte ein, tranken heißen Tee und warteten, bis der Regen nachließ, bevor wir im Dunkeln den letzten Bus nach Wernigerode erreichten.</p>`
)

// recordPage is a post's page with the metadata a researcher needs.
func recordPage(title, body string) string {
	return `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>` + title + `</title>
<meta name="author" content="Anna Schmidt">
<meta name="description" content="Ein Bericht aus Annas Blog.">
<meta property="og:site_name" content="Annas Blog">
<meta property="og:image" content="/bilder/titel.jpg">
<meta property="article:tag" content="Wandern">
<meta property="article:tag" content="Harz">
<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
</head><body><article><h1>` + title + `</h1>` + body + `</article></body></html>`
}

// recordFeed is the blog's feed; updated, when set, is post 1's update.
func recordFeed(h *simweb.Host, updated string) string {
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var items strings.Builder
	for i := 1; i <= 3; i++ {
		extra := ""
		if i == 1 && updated != "" {
			extra = `<atom:updated>` + updated + `</atom:updated>`
		}
		fmt.Fprintf(&items, `<item><title>Post %d</title><link>%s</link><pubDate>%s</pubDate><dc:creator>Anna Schmidt</dc:creator><category>Wandern</category>%s<description>Kurz</description></item>`,
			i, h.URL(fmt.Sprintf("/posts/%d/", i)), base.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), extra)
	}
	return `<?xml version="1.0"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Annas Blog</title><link>` +
		h.URL("/") + `</link><language>de</language>` + items.String() + `</channel></rss>`
}

func exportRecords(t *testing.T, env *binarytest.Env, args ...string) (map[string]recordPost, string) {
	t.Helper()
	r := env.Run(t, time.Minute, append([]string{"export", "--text"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("export %v: %d %s", args, r.Code, r.Stderr)
	}
	out := map[string]recordPost{}
	for _, l := range binarytest.Lines(r.Stdout) {
		var p recordPost
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out[p.URL] = p
	}
	cursor := ""
	for _, l := range binarytest.Lines(r.Stderr) {
		if c, ok := strings.CutPrefix(l, "cursor: "); ok {
			cursor = c
		}
	}
	if cursor == "" {
		t.Fatalf("export %v printed no cursor: %s", args, r.Stderr)
	}
	return out, cursor
}

// A blog whose pages give an author, lang="de", a description, a site
// name, tags, an image and a CC BY licence, two of whose posts have one
// text: every field exported as the page gives it, the later of the two a
// duplicate of the earlier and left out by --unique; after the web changed
// one post and a second run, --since the first export's cursor gives
// exactly that post.
func TestExportRecordDuplicatesSince(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	t.Cleanup(web.Close)
	h := web.Host(recordHost)
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", "text/html; charset=utf-8", `<!doctype html><html lang="de"><head><title>Annas Blog</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>Ein Blog.</p></body></html>`)
	first := h.Put("/posts/1/", "text/html; charset=utf-8", recordPage("Wandern im Harz", hikeText))
	h.Put("/posts/2/", "text/html; charset=utf-8", recordPage("Roggenbrot", breadText))
	h.Put("/posts/3/", "text/html; charset=utf-8", recordPage("Roggenbrot, noch einmal", breadText))
	feed := h.Put("/feed.xml", "application/rss+xml", recordFeed(h, ""))
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_FEED_INTERVAL", "0s")
	addSources(t, env, recordHost)
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}

	posts, cursor := exportRecords(t, env)
	u := func(i int) string { return h.URL(fmt.Sprintf("/posts/%d/", i)) }
	for i := 1; i <= 3; i++ {
		p, ok := posts[u(i)]
		if !ok || p.State != "indexed" {
			t.Fatalf("post %d: %+v", i, p)
		}
		want := recordPost{URL: u(i), State: "indexed", Title: p.Title, Author: "Anna Schmidt", Language: "de", Description: "Ein Bericht aus Annas Blog.",
			SiteName: "Annas Blog", Tags: []string{"Wandern", "Harz"}, License: "https://creativecommons.org/licenses/by/4.0/",
			Image: h.URL("/bilder/titel.jpg"), DuplicateOf: p.DuplicateOf, Updated: p.Updated, Text: p.Text}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("post %d:\n got %+v\nwant %+v", i, p, want)
		}
		if _, err := time.Parse(time.RFC3339, p.Updated); err != nil || !strings.HasSuffix(p.Updated, "Z") {
			t.Errorf("post %d updated %q: not RFC 3339 UTC", i, p.Updated)
		}
	}
	if posts[u(1)].DuplicateOf != "" || posts[u(2)].DuplicateOf != "" || posts[u(3)].DuplicateOf != u(2) {
		t.Errorf("duplicate_of: 1 %q, 2 %q, 3 %q; want only 3, of %s", posts[u(1)].DuplicateOf, posts[u(2)].DuplicateOf, posts[u(3)].DuplicateOf, u(2))
	}
	unique, _ := exportRecords(t, env, "--unique")
	if _, ok := unique[u(3)]; ok || len(unique) != 2 {
		t.Errorf("--unique: %d posts, the later copy included: %v", len(unique), ok)
	}
	if de, _ := exportRecords(t, env, "--language", "de", "--state", "indexed", "--site", recordHost); len(de) != 3 {
		t.Errorf("--language de --state indexed --site: %d posts, want 3", len(de))
	}

	// The web changes post 1 (the feed says so); the second run fetches it.
	first.Update(recordPage("Wandern im Harz", changedText), time.Now())
	feed.Update(recordFeed(h, time.Now().UTC().Add(time.Hour).Format(time.RFC3339)), time.Now())
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("second run --once: %d %s", r.Code, r.Stderr)
	}
	changed, _ := exportRecords(t, env, "--since", cursor)
	if len(changed) != 1 || !strings.Contains(changed[u(1)].Text, "Schierke") {
		t.Errorf("--since the first export: %d posts %v, want post 1 with its new text", len(changed), changed)
	}

	r := env.Run(t, time.Minute, "export", "--since", "c1.0123456789abcdef0123456789abcdef.1")
	lines := binarytest.Lines(r.Stderr) // after the warning FEED_INTERVAL=0s gives
	if r.Code == 0 || r.Stdout != "" || len(lines) == 0 || !strings.Contains(lines[len(lines)-1], "another database") || strings.Contains(r.Stderr, "\ncursor: ") {
		t.Errorf("a cursor of another database: exit %d, %q", r.Code, r.Stderr)
	}
}

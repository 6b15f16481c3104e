package feed_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/memtest"

	"github.com/mmcdole/gofeed"

	"corpus.blog/corpusbot/feed"
)

// The benchmarks compare this package with github.com/mmcdole/gofeed on the
// same 100 feeds, generated with a fixed seed: WordPress RSS with
// content:encoded, Atom as Blogger and Hugo write it, and JSON Feed, 10 to 50
// entries each. Names are BenchmarkParse/<corpus>/lib=<lib>, so that
//
//	benchstat -col /lib bench.txt
//
// puts the two side by side.

type benchFeed struct {
	kind string
	body []byte
}

var (
	sinkFeed   *feed.Feed
	sinkGofeed *gofeed.Feed
)

func BenchmarkParse(b *testing.B) {
	corpus := benchCorpus()
	for i, c := range corpus {
		if err := checkBenchFeed(c); err != nil {
			b.Fatalf("feed %d: %v", i, err)
		}
	}
	groups := map[string][]benchFeed{"all": corpus}
	for _, f := range corpus {
		groups[f.kind] = append(groups[f.kind], f)
	}
	for _, name := range []string{"all", "wordpress", "blogger", "hugo", "json"} {
		feeds := groups[name]
		var size int64
		for _, f := range feeds {
			size += int64(len(f.body))
		}
		ours := func(sample func()) {
			for _, f := range feeds {
				var err error
				if sinkFeed, err = feed.Parse(f.body, "https://bench.example/feed/"); err != nil {
					b.Fatal(err)
				}
				sample()
			}
		}
		p := gofeed.NewParser()
		theirs := func(sample func()) {
			for _, f := range feeds {
				var err error
				if sinkGofeed, err = p.Parse(bytes.NewReader(f.body)); err != nil {
					b.Fatal(err)
				}
				sample()
			}
		}
		// Peak heap: how far the heap rises over one pass of the group,
		// with the collector running as it would in the crawler.
		ourPeak, theirPeak := memtest.PeakHeap(ours), memtest.PeakHeap(theirs)
		b.Run(name+"/lib=corpusbot", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				ours(func() {})
			}
			b.ReportMetric(float64(ourPeak)/(1<<20), "peak-heap-MiB")
		})
		b.Run(name+"/lib=gofeed", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				theirs(func() {})
			}
			b.ReportMetric(float64(theirPeak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// TestBenchCorpus checks that both parsers read the generated corpus whole
// and alike, so that the benchmark compares like with like. It samples every
// seventh feed (every kind is among them) to stay quick under -race;
// BenchmarkParse checks all of them before it times anything.
func TestBenchCorpus(t *testing.T) {
	corpus := benchCorpus()
	if len(corpus) != 100 {
		t.Fatalf("%d feeds", len(corpus))
	}
	for i := 0; i < len(corpus); i += 7 {
		if err := checkBenchFeed(corpus[i]); err != nil {
			t.Fatalf("feed %d: %v", i, err)
		}
	}
}

func checkBenchFeed(c benchFeed) error {
	f, err := feed.Parse(c.body, "https://bench.example/feed/")
	if err != nil {
		return fmt.Errorf("%s: %w", c.kind, err)
	}
	g, err := gofeed.NewParser().Parse(bytes.NewReader(c.body))
	if err != nil {
		return fmt.Errorf("gofeed, %s: %w", c.kind, err)
	}
	if len(f.Entries) != len(g.Items) || len(f.Entries) < 10 || len(f.Entries) > 50 || f.Truncated {
		return fmt.Errorf("%s: %d entries, gofeed %d", c.kind, len(f.Entries), len(g.Items))
	}
	for j, e := range f.Entries {
		if e.Link == "" || e.Link != g.Items[j].Link || e.Published.IsZero() {
			return fmt.Errorf("%s entry %d: %+v; gofeed link %q", c.kind, j, e, g.Items[j].Link)
		}
	}
	return nil
}

func benchCorpus() []benchFeed {
	r := rand.New(rand.NewPCG(2026, 5005))
	out := make([]benchFeed, 0, 100)
	for i := range 100 {
		n := 10 + r.IntN(41)
		var kind string
		var body []byte
		switch i % 10 {
		case 0, 1, 2, 3:
			kind, body = "wordpress", genWordPress(r, i, n)
		case 4, 5:
			kind, body = "blogger", genBlogger(r, i, n)
		case 6, 7:
			kind, body = "hugo", genHugo(r, i, n)
		default:
			kind, body = "json", genJSON(r, i, n)
		}
		out = append(out, benchFeed{kind, body})
	}
	return out
}

var benchWords = strings.Fields(`the a crawler feed post site reads writes archive sitemap page robots
	polite request server cache header date link title entry content summary html markup text blog
	weblog publisher reader index search corpus record citation source year month morning evening
	notes travel cooking garden code release version library package module function error test`)

func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	return b.String()
}

// postHTML is a post body as editors produce it: paragraphs with links,
// emphasis and now and then an image.
func postHTML(r *rand.Rand, host string) string {
	var b strings.Builder
	for range 2 + r.IntN(10) {
		b.WriteString("<p>")
		b.WriteString(words(r, 20+r.IntN(60)))
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, ` <a href="https://%s/%s/">%s</a>`, host, words(r, 1), words(r, 2))
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, ` <em>%s</em>`, words(r, 3))
		}
		b.WriteString(".</p>\n")
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, `<figure class="wp-block-image size-large"><img decoding="async" width="1024" height="683" src="https://%s/wp-content/uploads/2025/%02d/img-%d.jpg" alt="" class="wp-image-%d"/></figure>`+"\n",
				host, 1+r.IntN(12), r.IntN(1000), r.IntN(5000))
		}
	}
	return b.String()
}

func benchDate(r *rand.Rand) time.Time {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(2*365*24*3600)) * time.Second)
}

func genWordPress(r *rand.Rand, i, n int) []byte {
	host := fmt.Sprintf("wp%d.example", i)
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"
	xmlns:content="http://purl.org/rss/1.0/modules/content/"
	xmlns:wfw="http://wellformedweb.org/CommentAPI/"
	xmlns:dc="http://purl.org/dc/elements/1.1/"
	xmlns:atom="http://www.w3.org/2005/Atom"
	xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"
	xmlns:slash="http://purl.org/rss/1.0/modules/slash/"
	>
<channel>
	<title>%s</title>
	<atom:link href="https://%s/feed/" rel="self" type="application/rss+xml" />
	<link>https://%s</link>
	<description>%s</description>
	<lastBuildDate>%s</lastBuildDate>
	<language>en-US</language>
	<sy:updatePeriod>
	hourly	</sy:updatePeriod>
	<sy:updateFrequency>
	1	</sy:updateFrequency>
	<generator>https://wordpress.org/?v=6.7.1</generator>
`, words(r, 3), host, host, words(r, 6), benchDate(r).Format(time.RFC1123Z))
	for j := range n {
		slug := strings.ReplaceAll(words(r, 4), " ", "-")
		d := benchDate(r)
		link := fmt.Sprintf("https://%s/%d/%02d/%s/", host, d.Year(), d.Month(), slug)
		fmt.Fprintf(&b, `	<item>
		<title>%s</title>
		<link>%s</link>
					<comments>%s#respond</comments>
		<dc:creator><![CDATA[%s]]></dc:creator>
		<pubDate>%s</pubDate>
				<category><![CDATA[%s]]></category>
		<category><![CDATA[%s]]></category>
		<guid isPermaLink="false">https://%s/?p=%d</guid>
					<description><![CDATA[%s [&#8230;]]]></description>
										<content:encoded><![CDATA[%s]]></content:encoded>
					<wfw:commentRss>%sfeed/</wfw:commentRss>
			<slash:comments>%d</slash:comments>
		</item>
`, words(r, 5), link, link, words(r, 1), d.Format(time.RFC1123Z), words(r, 1), words(r, 1), host, 100+j,
			words(r, 40), postHTML(r, host), link, r.IntN(20))
	}
	b.WriteString("\t</channel>\n</rss>\n")
	return []byte(b.String())
}

func genBlogger(r *rand.Rand, i, n int) []byte {
	host := fmt.Sprintf("blog%d.blogspot.com", i)
	id := 1000000 + i
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version='1.0' encoding='UTF-8'?><?xml-stylesheet href="http://www.blogger.com/styles/atom.css" type="text/css"?><feed xmlns='http://www.w3.org/2005/Atom' xmlns:openSearch='http://a9.com/-/spec/opensearchrss/1.0/' xmlns:blogger='http://schemas.google.com/blogger/2008' xmlns:georss='http://www.georss.org/georss' xmlns:gd="http://schemas.google.com/g/2005" xmlns:thr='http://purl.org/syndication/thread/1.0'><id>tag:blogger.com,1999:blog-%d</id><updated>%s</updated><category term="%s"/><title type='text'>%s</title><subtitle type='html'>%s</subtitle><link rel='http://schemas.google.com/g/2005#feed' type='application/atom+xml' href='https://%s/feeds/posts/default'/><link rel='self' type='application/atom+xml' href='https://www.blogger.com/feeds/%d/posts/default?redirect=false'/><link rel='alternate' type='text/html' href='https://%s/'/><link rel='hub' href='http://pubsubhubbub.appspot.com/'/><link rel='next' type='application/atom+xml' href='https://www.blogger.com/feeds/%d/posts/default?start-index=26&amp;max-results=25&amp;redirect=false'/><author><name>%s</name><uri>http://www.blogger.com/profile/%d</uri><email>noreply@blogger.com</email><gd:image rel='http://schemas.google.com/g/2005#thumbnail' width='16' height='16' src='https://img1.blogblog.com/img/b16-rounded.gif'/></author><generator version='7.00' uri='http://www.blogger.com'>Blogger</generator><openSearch:totalResults>%d</openSearch:totalResults><openSearch:startIndex>1</openSearch:startIndex><openSearch:itemsPerPage>25</openSearch:itemsPerPage>`,
		id, benchDate(r).Format("2006-01-02T15:04:05.000-07:00"), words(r, 1), words(r, 3), words(r, 5), host, id, host, id, words(r, 2), id, n*3)
	for j := range n {
		d := benchDate(r).In(time.FixedZone("", -8*3600))
		slug := strings.ReplaceAll(words(r, 3), " ", "-")
		link := fmt.Sprintf("https://%s/%d/%02d/%s.html", host, d.Year(), d.Month(), slug)
		title := words(r, 5)
		fmt.Fprintf(&b, `<entry><id>tag:blogger.com,1999:blog-%d.post-%d</id><published>%s</published><updated>%s</updated><category scheme="http://www.blogger.com/atom/ns#" term="%s"/><title type='text'>%s</title><content type='html'>%s</content><link rel='replies' type='application/atom+xml' href='https://%s/feeds/%d/comments/default' title='Post Comments'/><link rel='replies' type='text/html' href='%s#comment-form' title='%d Comments'/><link rel='edit' type='application/atom+xml' href='https://www.blogger.com/feeds/%d/posts/default/%d'/><link rel='self' type='application/atom+xml' href='https://www.blogger.com/feeds/%d/posts/default/%d'/><link rel='alternate' type='text/html' href='%s' title='%s'/><author><name>%s</name></author><thr:total>%d</thr:total></entry>`,
			id, j, d.Format("2006-01-02T15:04:05.000-07:00"), d.Add(time.Hour).Format("2006-01-02T15:04:05.000-07:00"),
			words(r, 1), title, html.EscapeString(postHTML(r, host)), host, j, link, r.IntN(9), id, j, id, j, link, title, words(r, 2), r.IntN(9))
	}
	b.WriteString("</feed>")
	return []byte(b.String())
}

func genHugo(r *rand.Rand, i, n int) []byte {
	host := fmt.Sprintf("hugo%d.example", i)
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>%s</title>
  <link href="https://%s/index.xml" rel="self"/>
  <link href="https://%s/"/>
  <updated>%s</updated>
  <id>https://%s/</id>
  <generator>Hugo -- gohugo.io</generator>
`, words(r, 3), host, host, benchDate(r).Format(time.RFC3339), host)
	for range n {
		d := benchDate(r)
		link := fmt.Sprintf("https://%s/posts/%s/", host, strings.ReplaceAll(words(r, 3), " ", "-"))
		fmt.Fprintf(&b, `  <entry>
    <title>%s</title>
    <link href="%s"/>
    <id>%s</id>
    <published>%s</published>
    <updated>%s</updated>
    <author><name>%s</name></author>
    <summary type="html">%s</summary>
    <content type="html"><![CDATA[%s]]></content>
  </entry>
`, words(r, 5), link, link, d.Format(time.RFC3339), d.Add(48*time.Hour).Format(time.RFC3339), words(r, 2), words(r, 30), postHTML(r, host))
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}

func genJSON(r *rand.Rand, i, n int) []byte {
	host := fmt.Sprintf("json%d.example", i)
	type item struct {
		ID            string   `json:"id"`
		URL           string   `json:"url"`
		Title         string   `json:"title"`
		ContentHTML   string   `json:"content_html"`
		Summary       string   `json:"summary"`
		DatePublished string   `json:"date_published"`
		DateModified  string   `json:"date_modified,omitempty"`
		Tags          []string `json:"tags"`
	}
	doc := struct {
		Version     string `json:"version"`
		Title       string `json:"title"`
		HomePageURL string `json:"home_page_url"`
		FeedURL     string `json:"feed_url"`
		Items       []item `json:"items"`
	}{"https://jsonfeed.org/version/1.1", words(r, 3), "https://" + host + "/", "https://" + host + "/feed.json", nil}
	for j := range n {
		d := benchDate(r)
		it := item{ID: fmt.Sprintf("https://%s/%d", host, j), URL: fmt.Sprintf("https://%s/%d", host, j), Title: words(r, 5),
			ContentHTML: postHTML(r, host), Summary: words(r, 25), DatePublished: d.Format(time.RFC3339), Tags: strings.Fields(words(r, 3))}
		if r.IntN(2) == 0 {
			it.DateModified = d.Add(time.Hour).Format(time.RFC3339)
		}
		doc.Items = append(doc.Items, it)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

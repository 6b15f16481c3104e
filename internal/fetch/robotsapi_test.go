package fetch_test

import (
	"context"
	"slices"
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

func TestRobotsPurposeAndEntry(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("maps.example")
	const body = "User-agent: *\nDisallow: /x\nSitemap: https://maps.example/sitemap.xml\n"
	h.Robots(body)
	res := r.get(h.URL("/robots.txt"), model.PurposeRobots)
	want(t, res, model.OutcomeFetched)
	if string(res.Body) != body || res.Robots != robots.StateParsed || res.ETag == "" {
		t.Errorf("robots fetch: %q %s %q", res.Body, res.Robots, res.ETag)
	}
	e, err := r.f.Robots(context.Background(), h.URL("/anything"))
	if err != nil || !slices.Equal(e.Verdict.File.Sitemaps(), []string{"https://maps.example/sitemap.xml"}) {
		t.Errorf("entry %+v %v", e, err)
	}
	// Asked again on purpose: conditionally, and a 304 keeps the file.
	res = r.get(h.URL("/robots.txt"), model.PurposeRobots)
	want(t, res, model.OutcomeUnchanged)
	if res.Robots != robots.StateParsed {
		t.Errorf("after 304: %s", res.Robots)
	}
	want(t, r.get(h.URL("/x"), model.PurposePage), model.OutcomeDisallowed)
	if got := r.uris(h.Name()); !slices.Equal(got, []string{"/robots.txt", "/robots.txt"}) {
		t.Errorf("requests %q", got)
	}
	if res := r.get(h.URL("/p"), "bogus"); res.Outcome != model.OutcomeError {
		t.Errorf("unknown purpose: %s", res.Outcome)
	}
	if res := r.get("ftp://maps.example/", model.PurposePage); res.Outcome != model.OutcomeError {
		t.Errorf("ftp: %s", res.Outcome)
	}
}

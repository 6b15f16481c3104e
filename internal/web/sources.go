package web

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// DirectoryData is what /sources and /sources/SITE (and their /api
// twins) ask: the list of sites and one site's detail, its request chart
// ending with the log's last day (RequestSpan, as OverviewData has it).
// See Data for the terms.
type DirectoryData interface {
	// Sites lists sites in ascending order of the site name, filtered by
	// q.State when it is not empty (a source state: a site matches when at
	// least one of its sources is in that state). Pagination is by key: the
	// page holds the first q.Limit sites whose name is > q.After (all of
	// them from the start when After is ""); Next is the last site of the
	// page when more sites follow it, else "". Total is the number of sites
	// matching the filter, ignoring After. Limit is between 1 and 500; the
	// caller enforces that.
	Sites(ctx context.Context, q model.SitesQuery) (model.SitePage, error)

	// Site returns one site's metadata: its sources (ascending by homepage
	// URL) with their feeds and sitemaps, post counts, citations and the
	// request log summary. now bounds the request log's day buckets (the
	// RequestDays days ending with now's day). ErrNotFound when the site has
	// no source, no logged request and was never opted out.
	Site(ctx context.Context, site string, now time.Time) (model.SiteDetail, error)

	RequestSpan(ctx context.Context) (from, to time.Time, ok bool, err error)
}

const (
	defaultPageSize = 50
	maxPageSize     = 500
)

// sitesQuery reads ?after=SITE&limit=N&state=STATE, checking each.
func sitesQuery(r *http.Request) (model.SitesQuery, error) {
	v := r.URL.Query()
	q := model.SitesQuery{After: v.Get("after"), Limit: defaultPageSize, State: v.Get("state")}
	if len(q.After) > 253 {
		return q, inputErr("after: not a site name (too long)")
	}
	if raw := v.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPageSize {
			return q, inputErr("limit: want a whole number from 1 to " + strconv.Itoa(maxPageSize))
		}
		q.Limit = n
	}
	if q.State != "" && !slices.Contains(model.SourceStates, q.State) {
		return q, inputErr("state: want one of " + strings.Join(model.SourceStates, ", "))
	}
	return q, nil
}

type sourcesBody struct {
	Page     model.SitePage
	Query    model.SitesQuery
	States   []string
	NextURL  string
	FirstURL string
}

func (s *Server) sources(w http.ResponseWriter, r *http.Request) {
	q, err := sitesQuery(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "That list cannot be shown", err.Error())
		return
	}
	pg, err := s.opt.Data.Sites(r.Context(), q)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	b := sourcesBody{Page: pg, Query: q, States: model.SourceStates}
	if pg.Next != "" {
		b.NextURL = listURL("/sources", pg.Next, q)
	}
	if q.After != "" {
		b.FirstURL = listURL("/sources", "", q)
	}
	s.render(w, r, http.StatusOK, "sources.html", "Sources", "sources", b)
}

// listURL is the address of a page of the list with the same filter.
func listURL(path, after string, q model.SitesQuery) string {
	v := url.Values{}
	if after != "" {
		v.Set("after", after)
	}
	if q.Limit != defaultPageSize {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.State != "" {
		v.Set("state", q.State)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// siteParam reads {site} from the path. Only names that ParseSite gives
// back unchanged are sites; anything else (a subdomain, a URL) is answered
// with a redirect to its site, or a 400.
//
// Sources on an IP address or a bare name (a test or intranet crawl with
// ALLOW_PRIVATE) are their own sites, as model.Site has them, so their
// pages exist too, although the forms do not take such names.
func siteParam(r *http.Request) (site string, canonical bool, err error) {
	raw := r.PathValue("site")
	if a, perr := netip.ParseAddr(raw); perr == nil {
		site = a.Unmap().String()
		return site, site == raw, nil
	}
	if l := strings.ToLower(raw); !strings.Contains(l, ".") && l != "" && checkHostname(l+".x") == nil {
		return l, l == raw, nil
	}
	site, err = ParseSite(raw)
	if err != nil {
		return "", false, err
	}
	return site, site == raw, nil
}

type sourceBody struct {
	Detail   model.SiteDetail
	Days     chart
	Now      time.Time
	Delivery map[int64]string // source ID -> pushed, polled or both (websub_delivery.go); nil: unknown
}

func (s *Server) sourceDetail(w http.ResponseWriter, r *http.Request) {
	site, canonical, err := siteParam(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "Not a site name", err.Error())
		return
	}
	if !canonical {
		http.Redirect(w, r, "/sources/"+url.PathEscape(site), http.StatusMovedPermanently)
		return
	}
	now := s.opt.Now()
	// The site's request chart ends on the request log's last day, as the
	// coverage page's does (the demo's simulated days, or a crawler that
	// has stopped, are not months of empty bars before today).
	end := now
	if _, last, ok, err := s.opt.Data.RequestSpan(r.Context()); err != nil {
		s.serverError(w, r, err)
		return
	} else if ok && last.Before(now) {
		end = last
	}
	d, err := s.opt.Data.Site(r.Context(), site, end)
	if errors.Is(err, model.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "Site not found", "We hold no source of "+site+" and have sent it no request.")
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	b := sourceBody{Detail: d, Now: now,
		Days: stacked("site-days", "Requests to "+site+" per day",
			"Stacked bar chart of our requests to this site per day over the 30 days ending with the request log's last day; the lower part is requests answered 304 Not Modified.",
			daySeries(d.Requests.Days, day(end).AddDate(0, 0, 1-model.RequestDays), day(end).AddDate(0, 0, 1)), []string{"c-304", "c-req"}, []string{"answered 304", "other requests"}),
		Delivery: s.siteDelivery(r.Context(), site)}
	s.render(w, r, http.StatusOK, "source.html", site, "sources", b)
}

package web

import (
	"net/http"
	"net/netip"

	"corpus.blog/corpusbot/internal/config"
)

type crawlerBody struct {
	UA            string
	Token         string
	CrawlerURL    string
	Rules         []ruleGroup
	Settings      []config.Entry
	Egress        []netip.Prefix
	VerifyDomains []string
	ExampleIP     string
	ExampleName   string
	Delivery      *deliveryView // nil: no DeliveryData (websub_delivery.go)
}

func (s *Server) crawlerBody() crawlerBody {
	st := s.opt.Settings
	b := crawlerBody{
		UA: st.UserAgent, Token: st.ProductToken(), CrawlerURL: crawlerURL(st.UserAgent),
		Rules: crawlerRules(st), Egress: s.opt.EgressPrefixes, VerifyDomains: s.opt.VerifyDomains,
		ExampleIP: "203.0.113.7", ExampleName: "crawl-203-0-113-7.example",
	}
	for _, e := range st.Entries() {
		// The database's location is the operator's business, not the public's.
		if e.Name == "DB" {
			continue
		}
		b.Settings = append(b.Settings, e)
	}
	if len(s.opt.EgressPrefixes) > 0 {
		b.ExampleIP = s.opt.EgressPrefixes[0].Addr().String()
	}
	if len(s.opt.VerifyDomains) > 0 {
		b.ExampleName = "crawl-1." + s.opt.VerifyDomains[0]
	}
	return b
}

func (s *Server) crawler(w http.ResponseWriter, r *http.Request) {
	b := s.crawlerBody()
	b.Delivery = s.delivery(r.Context())
	s.render(w, r, http.StatusOK, "crawler.html", "The crawler", "crawler", b)
}

// ipsDoc is /crawler/ips.json, in the shape Google publishes for Googlebot
// (googlebot.json), which crawler-verification tools already read.
type ipsDoc struct {
	CreationTime string     `json:"creationTime"`
	Prefixes     []ipPrefix `json:"prefixes"`
}

type ipPrefix struct {
	IPv4Prefix string `json:"ipv4Prefix,omitempty"`
	IPv6Prefix string `json:"ipv6Prefix,omitempty"`
}

func (s *Server) ipsDoc() ipsDoc {
	at := s.opt.EgressUpdated
	if at.IsZero() {
		at = s.start
	}
	doc := ipsDoc{CreationTime: at.UTC().Format("2006-01-02T15:04:05.000000"), Prefixes: []ipPrefix{}}
	for _, p := range s.opt.EgressPrefixes {
		p = p.Masked()
		if p.Addr().Is4() {
			doc.Prefixes = append(doc.Prefixes, ipPrefix{IPv4Prefix: p.String()})
		} else {
			doc.Prefixes = append(doc.Prefixes, ipPrefix{IPv6Prefix: p.String()})
		}
	}
	return doc
}

func (s *Server) ipsJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	s.writeJSON(w, http.StatusOK, s.ipsDoc())
}

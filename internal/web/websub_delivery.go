package web

import (
	"context"
)

// DeliveryData says how each source's new posts reach the crawler: pushed
// by its hub (WebSub), polled, or both. It is optional: Options.Deliveries,
// else Data when it implements it (*store.DB does, store.Push); without
// it the pages say nothing of delivery.
type DeliveryData interface {
	// Deliveries counts the sources with an active feed that are pushed
	// (every active feed subscribed), polled (none) and both (some).
	Deliveries(ctx context.Context) (pushed, polled, both int, err error)
	// SiteDelivery is "pushed", "polled" or "both" by source ID, for the
	// sources of site with an active feed.
	SiteDelivery(ctx context.Context, site string) (map[int64]string, error)
}

// deliveryView is the crawler and coverage pages' "pushed, polled or both".
type deliveryView struct {
	Pushed int `json:"pushed"` // sources whose feeds only a hub delivers
	Polled int `json:"polled"` // sources only polled
	Both   int `json:"both"`   // sources pushed and polled
}

func (s *Server) deliveryData() DeliveryData {
	if s.opt.Deliveries != nil {
		return s.opt.Deliveries
	}
	d, _ := s.opt.Data.(DeliveryData)
	return d
}

// delivery is the view, nil when there is no DeliveryData or it failed
// (logged: the page is still worth showing without it).
func (s *Server) delivery(ctx context.Context) *deliveryView {
	d := s.deliveryData()
	if d == nil {
		return nil
	}
	pushed, polled, both, err := d.Deliveries(ctx)
	if err != nil {
		s.opt.Log.Warn("web: deliveries", "err", err)
		return nil
	}
	return &deliveryView{Pushed: pushed, Polled: polled, Both: both}
}

// siteDelivery is SiteDelivery for the source page, nil when unknown.
func (s *Server) siteDelivery(ctx context.Context, site string) map[int64]string {
	d := s.deliveryData()
	if d == nil {
		return nil
	}
	m, err := d.SiteDelivery(ctx, site)
	if err != nil {
		s.opt.Log.Warn("web: site delivery", "site", site, "err", err)
		return nil
	}
	return m
}

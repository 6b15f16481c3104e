package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// OwnersData is what the owners' pages ask: the opt-out form pauses a
// site, a claim page (once verified) pauses or resumes its site or one of
// its sources, and shows the site as DirectoryData.Site has it. See Data
// for the terms.
type OwnersData interface {
	// PauseSite opts a whole site out at once: every source of the site is
	// paused (Paused true, PausedBy = by, PausedAt = now), and the site
	// itself is recorded as opted out, so that a source of that site added
	// later starts paused and the crawler sends nothing to any host of the
	// site from the moment this returns. It succeeds for a site with no
	// source (the record keeps it out of the catalogue). Calling it again is
	// harmless: sources already paused keep their first PausedAt and count
	// in AlreadyPaused.
	PauseSite(ctx context.Context, site, by string, now time.Time) (model.PauseResult, error)

	// ResumeSite undoes PauseSite: the site-level opt-out is cleared and
	// every source of the site resumes. Used only from a verified claim.
	ResumeSite(ctx context.Context, site string) error

	// PauseSource and ResumeSource pause or resume one source by its ID.
	// ErrNotFound for an unknown ID. Resuming a source of a site that is
	// opted out as a whole does not clear the site-level record (ResumeSite
	// does): new sources of that site would still start paused.
	PauseSource(ctx context.Context, sourceID int64, by string, now time.Time) error
	ResumeSource(ctx context.Context, sourceID int64) error

	// CreateClaim stores a new claim. c.ID is unique (it is a hash of the
	// claim page's secret, chosen by the caller); an existing ID is an error.
	CreateClaim(ctx context.Context, c model.Claim) error
	// Claim returns the claim with that ID, or ErrNotFound.
	Claim(ctx context.Context, id string) (model.Claim, error)
	// MarkClaimVerified records a successful proof of control: Verified =
	// now, Method = method ("dns" or "file"). ErrNotFound for an unknown ID.
	MarkClaimVerified(ctx context.Context, id, method string, now time.Time) error
}

// A claim has two strings, for two different jobs:
//   - the secret (256 bits) is in the claim page's address and is the
//     only thing that opens it; the store keeps only its SHA-256 (Claim.ID);
//   - the token (128 bits) is what the owner publishes in DNS or in the
//     well-known file. It is public once published, so it opens nothing.

// pausedByClaim is the PausedBy of sources paused from a claim page.
const pausedByClaim = "claim"

func newSecret() string { return rand.Text() + rand.Text() }

func claimID(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// validSecret checks the shape of a secret (52 base32 characters) before
// any lookup, so that junk addresses cost no store query.
func validSecret(s string) bool {
	if len(s) != 52 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

type claimFormBody struct {
	Value string
	Error string
}

func (s *Server) claimForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "claimform.html", "Claim your site", "claim", claimFormBody{})
}

func (s *Server) claimCreate(w http.ResponseWriter, r *http.Request) {
	raw, ok := s.formValue(w, r, "site")
	if !ok {
		return
	}
	site, err := ParseSite(raw)
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			s.serverError(w, r, err)
			return
		}
		if len(raw) > 300 {
			raw = raw[:300]
		}
		s.render(w, r, http.StatusBadRequest, "claimform.html", "Claim your site", "claim", claimFormBody{Value: raw, Error: ie.Msg})
		return
	}
	now := s.opt.Now()
	secret := newSecret()
	c := model.Claim{ID: claimID(secret), Site: site, Token: rand.Text(), Created: now, Expires: now.Add(s.opt.ClaimTTL)}
	if err := s.opt.Data.CreateClaim(r.Context(), c); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.opt.Log.Info("web: claim created", "site", site)
	http.Redirect(w, r, "/claim/"+secret, http.StatusSeeOther)
}

// claimStatus is where a claim stands.
const (
	claimPending  = "pending"  // not yet proven, still provable
	claimExpired  = "expired"  // not proven in time
	claimVerified = "verified" // proven, the owner may act
	claimStale    = "stale"    // proven too long ago: prove again to act
)

func (s *Server) claimStatus(c model.Claim, now time.Time) string {
	switch {
	case c.Verified.IsZero() && now.After(c.Expires):
		return claimExpired
	case c.Verified.IsZero():
		return claimPending
	case now.After(c.Verified.Add(s.opt.ClaimValidity)):
		return claimStale
	}
	return claimVerified
}

type claimBody struct {
	Claim     model.Claim
	Status    string
	Path      string
	TXTName   string
	TXTValue  string
	FileURLs  []string
	Sources   []model.SourceDetail
	OptedOut  bool
	Notes     []string
	Done      string
	ValidTill time.Time
}

// lookupClaim finds the claim a request's secret opens, answering 404
// itself when none does.
func (s *Server) lookupClaim(w http.ResponseWriter, r *http.Request) (model.Claim, string, bool) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
	secret := r.PathValue("secret")
	if validSecret(secret) {
		c, err := s.opt.Data.Claim(r.Context(), claimID(secret))
		if err == nil {
			return c, secret, true
		}
		if !errors.Is(err, model.ErrNotFound) {
			s.serverError(w, r, err)
			return model.Claim{}, "", false
		}
	}
	s.fail(w, r, http.StatusNotFound, "Claim not found",
		"No claim has this address. Check that you copied the whole address, or start a new claim.")
	return model.Claim{}, "", false
}

func (s *Server) claimBody(ctx context.Context, c model.Claim, secret string) (claimBody, error) {
	now := s.opt.Now()
	b := claimBody{Claim: c, Status: s.claimStatus(c, now), Path: "/claim/" + secret,
		TXTName: claimDNSPrefix + c.Site, TXTValue: claimTXTKey + c.Token, FileURLs: claimFileURLs(c.Site)}
	if !c.Verified.IsZero() {
		b.ValidTill = c.Verified.Add(s.opt.ClaimValidity)
	}
	if b.Status == claimVerified {
		d, err := s.opt.Data.Site(ctx, c.Site, now)
		switch {
		case errors.Is(err, model.ErrNotFound):
		case err != nil:
			return b, err
		default:
			b.Sources, b.OptedOut = d.Sources, d.OptedOut
		}
	}
	return b, nil
}

func (s *Server) claimPage(w http.ResponseWriter, r *http.Request) {
	c, secret, ok := s.lookupClaim(w, r)
	if !ok {
		return
	}
	b, err := s.claimBody(r.Context(), c, secret)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	switch d := r.URL.Query().Get("done"); d {
	case "paused", "resumed", "verified":
		b.Done = d
	}
	s.render(w, r, http.StatusOK, "claim.html", "Claim for "+c.Site, "claim", b)
}

func (s *Server) claimVerify(w http.ResponseWriter, r *http.Request) {
	c, secret, ok := s.lookupClaim(w, r)
	if !ok {
		return
	}
	now := s.opt.Now()
	if s.claimStatus(c, now) == claimExpired {
		b, err := s.claimBody(r.Context(), c, secret)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		s.render(w, r, http.StatusGone, "claim.html", "Claim expired", "claim", b)
		return
	}
	method, notes := s.prove(r.Context(), c)
	if method != "" {
		if err := s.opt.Data.MarkClaimVerified(r.Context(), c.ID, method, now); err != nil {
			s.serverError(w, r, err)
			return
		}
		s.opt.Log.Info("web: claim verified", "site", c.Site, "method", method)
		http.Redirect(w, r, "/claim/"+secret+"?done=verified", http.StatusSeeOther)
		return
	}
	b, err := s.claimBody(r.Context(), c, secret)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	b.Notes = notes
	s.render(w, r, http.StatusUnprocessableEntity, "claim.html", "Not verified yet", "claim", b)
}

func (s *Server) claimPause(w http.ResponseWriter, r *http.Request)  { s.claimAct(w, r, true) }
func (s *Server) claimResume(w http.ResponseWriter, r *http.Request) { s.claimAct(w, r, false) }

// claimAct pauses or resumes one source of the claimed site ("source" = its
// ID) or all of them ("source" = "all").
func (s *Server) claimAct(w http.ResponseWriter, r *http.Request, pause bool) {
	c, secret, ok := s.lookupClaim(w, r)
	if !ok {
		return
	}
	now := s.opt.Now()
	if st := s.claimStatus(c, now); st != claimVerified {
		s.fail(w, r, http.StatusForbidden, "Verify the claim first",
			"Only a verified claim can pause or resume sources. Open the claim page and verify it (again).")
		return
	}
	which, ok := s.formValue(w, r, "source")
	if !ok {
		return
	}
	ctx := r.Context()
	var err error
	if which == "all" {
		if pause {
			_, err = s.opt.Data.PauseSite(ctx, c.Site, pausedByClaim, now)
		} else {
			err = s.opt.Data.ResumeSite(ctx, c.Site)
		}
	} else {
		id, perr := strconv.ParseInt(which, 10, 64)
		if perr != nil || !s.ownsSource(ctx, c.Site, id) {
			s.fail(w, r, http.StatusBadRequest, "Not a source of this site", "That source does not belong to "+c.Site+".")
			return
		}
		if pause {
			err = s.opt.Data.PauseSource(ctx, id, pausedByClaim, now)
		} else {
			err = s.opt.Data.ResumeSource(ctx, id)
		}
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	done := "resumed"
	if pause {
		done = "paused"
	}
	s.opt.Log.Info("web: claim action", "site", c.Site, "action", done, "source", which)
	http.Redirect(w, r, "/claim/"+secret+"?done="+done, http.StatusSeeOther)
}

// ownsSource checks that a source ID from a form belongs to the claimed
// site: the form is the owner's, but its fields are not to be trusted.
func (s *Server) ownsSource(ctx context.Context, site string, id int64) bool {
	d, err := s.opt.Data.Site(ctx, site, s.opt.Now())
	if err != nil {
		return false
	}
	for _, src := range d.Sources {
		if src.ID == id {
			return true
		}
	}
	return false
}

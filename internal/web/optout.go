package web

import (
	"errors"
	"net/http"

	"corpus.blog/corpusbot/internal/model"
)

type optOutBody struct {
	Value  string // what was typed, to show it again
	Error  string
	Result *model.PauseResult
	Token  string
}

// pausedByForm is the PausedBy of sources paused through the opt-out form.
const pausedByForm = "opt-out form"

func (s *Server) optOutForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "optout.html", "Opt out", "opt-out", optOutBody{Token: s.opt.Settings.ProductToken()})
}

// optOut pauses a whole site at once. There is no human step and no proof
// asked: pausing is the safe direction, so anyone may ask it of any site;
// only resuming needs a claim.
func (s *Server) optOut(w http.ResponseWriter, r *http.Request) {
	b := optOutBody{Token: s.opt.Settings.ProductToken()}
	raw, ok := s.formValue(w, r, "site")
	if !ok {
		return
	}
	b.Value = raw
	site, err := ParseSite(raw)
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			s.serverError(w, r, err)
			return
		}
		b.Error = ie.Msg
		if len(b.Value) > 300 {
			b.Value = b.Value[:300]
		}
		s.render(w, r, http.StatusBadRequest, "optout.html", "Opt out", "opt-out", b)
		return
	}
	res, err := s.opt.Data.PauseSite(r.Context(), site, pausedByForm, s.opt.Now())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.opt.Log.Info("web: site opted out", "site", site, "paused", res.Paused, "already", res.AlreadyPaused)
	b.Result = &res
	b.Value = site
	s.render(w, r, http.StatusOK, "optout.html", "Opted out: "+site, "opt-out", b)
}

// formValue reads one field of a POSTed form, answering the error itself
// (413 for a body over maxForm, 400 for a malformed one) when it cannot.
func (s *Server) formValue(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.fail(w, r, http.StatusRequestEntityTooLarge, "Too much data", "That form sent far more than its fields can hold.")
			return "", false
		}
		s.fail(w, r, http.StatusBadRequest, "The form could not be read", "Send it again from the page.")
		return "", false
	}
	return r.PostForm.Get(name), true
}

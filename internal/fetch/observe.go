package fetch

import (
	"context"
	"log/slog"

	"corpus.blog/corpusbot/internal/model"
)

// emit makes the Record of attempt a, which ended in ex, and hands it to
// Options.Observe and the log. send calls it, once per attempt: an
// attempt declined before any connection is a record too, with no status
// and no duration.
func (f *Fetcher) emit(ctx context.Context, a *attempt, ex exchange) {
	r := model.RequestRecord{
		Site: a.site, Origin: a.origin, URL: a.shown, Purpose: a.purpose, Status: ex.status, Bytes: ex.read,
		Start: ex.start, Duration: ex.end.Sub(ex.start), Conditional: ex.conditional, Waited: a.waited,
		Outcome: ex.outcome, Err: ex.err,
	}
	if ex.location != nil {
		r.Outcome = model.OutcomeRedirect // a hop whose Location is followed: not an outcome a caller sees
	}
	if f.observe != nil {
		f.observe(r)
	}
	// One line per request, failures included, at DEBUG (LOG_LEVEL=debug):
	// what a failure costs is the crawl's to say (a retry, or WARN when
	// work is lost), and each round's summary counts errors by reason.
	attrs := []slog.Attr{
		slog.String("site", r.Site), slog.String("url", r.URL), slog.String("purpose", string(r.Purpose)),
		slog.Int("status", r.Status), slog.Int64("bytes", r.Bytes), slog.Duration("duration", r.Duration),
		slog.Bool("conditional", r.Conditional), slog.String("outcome", string(r.Outcome)),
	}
	if r.Err != nil {
		attrs = append(attrs, slog.String("err", r.Err.Error()))
	}
	f.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelDebug, "fetch", attrs...)
}

// RecordReason is the short, stable reason of a record that did not end
// in a 2xx or a 304 (Result.Reason's words), "" for one that did.
func RecordReason(r model.RequestRecord) string {
	return Result{Outcome: r.Outcome, Status: r.Status, Err: r.Err}.Reason()
}

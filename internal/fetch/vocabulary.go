package fetch

// The vocabulary the fetcher reports in: every Purpose and every Outcome,
// listed once so that whoever counts records (internal/metrics) names them
// in the same words and can start each at zero. vocabulary_test.go checks
// the lists against the constants declared in request.go.

// Purposes lists every Purpose.
func Purposes() []Purpose {
	return []Purpose{
		PurposeRobots, PurposeFeed, PurposePage, PurposeSitemap, PurposeCatalogue,
		PurposeClaim, PurposeWebSub, PurposeIndexNow,
	}
}

// Outcomes lists every Outcome, OutcomeRedirect (records only) included.
func Outcomes() []Outcome {
	return []Outcome{
		OutcomeFetched, OutcomeUnchanged, OutcomeDisallowed, OutcomeRefused, OutcomeOptedOut,
		OutcomeWaiting, OutcomeTooLarge, OutcomeWrongType, OutcomeStatus, OutcomeError, OutcomeRedirect,
	}
}

// Declined reports an outcome reached before any connection was made:
// robots.txt said no (or could not be read), the site is on the refusal
// list or opted out, or its next permitted request is beyond the horizon.
// A record with such an outcome is a request not sent.
func (o Outcome) Declined() bool {
	switch o {
	case OutcomeDisallowed, OutcomeRefused, OutcomeOptedOut, OutcomeWaiting:
		return true
	}
	return false
}

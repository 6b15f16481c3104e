package postgres

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// connectError is a failure to reach the server, each distinct reason
// said once. pgx tries every address of the host, and under the default
// sslmode=prefer each of them twice (with TLS, then without), and joins
// every attempt's error: an unreachable server is described two or more
// times over in one message.
type connectError struct {
	msg string
	err error // pgx's, for errors.As and errors.Is
}

func (e *connectError) Error() string { return e.msg }
func (e *connectError) Unwrap() error { return e.err }

// connectFailure is err as a connectError when it is pgx's failure to
// connect, nil otherwise.
func connectFailure(err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return nil
	}
	var reasons []string
	var collect func(prefix string, e error)
	collect = func(prefix string, e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				collect(prefix, x)
			}
			return
		}
		// A wrapping that adds words before a joined error ("hostname
		// resolving error: …") keeps them before each reason.
		if inner := errors.Unwrap(e); inner != nil {
			if _, joined := inner.(interface{ Unwrap() []error }); joined {
				if p, ok := strings.CutSuffix(e.Error(), inner.Error()); ok {
					collect(prefix+p, inner)
					return
				}
			}
		}
		if s := strings.Join(strings.Fields(prefix+e.Error()), " "); !slices.Contains(reasons, s) {
			reasons = append(reasons, s)
		}
	}
	collect("", errors.Unwrap(ce))
	who := ""
	if ce.Config != nil {
		who = fmt.Sprintf(" (user %s, database %s)", ce.Config.User, ce.Config.Database)
	}
	return &connectError{msg: "cannot connect to PostgreSQL" + who + ": " + strings.Join(reasons, "; "), err: err}
}

package sourcelist

import (
	"fmt"
	"strings"

	"corpus.blog/corpusbot/internal/model"
)

// Selector is what one argument of the commands that act on stored
// sources (sources remove, pause, resume) names: the one source whose
// Identity a URL has (as sources add dedupes, so that any spelling of a
// homepage names its source), or every source of a site.
type Selector struct {
	Arg   string // as given, for messages (redacted)
	Ident string // Identity of the URL given; "" when a site was given
	Site  string // the registrable domain named, or the URL's
}

// IsSite reports whether the selector names a whole site.
func (s Selector) IsSite() bool { return s.Ident == "" }

// ParseSelector reads an argument: a URL (one with "://") names a source by
// its Identity; anything else must be a site as model.Site has it, the
// registrable domain (example.com, alice.github.io). A host below a site
// (blog.example.com) is refused rather than widened to its site: the
// commands that take selectors stop crawls and delete posts, and an
// argument should never name more than it says.
func ParseSelector(arg string) (Selector, error) {
	arg = strings.TrimSpace(arg)
	if strings.Contains(arg, "://") {
		ident, err := Identity(arg)
		if err != nil {
			return Selector{}, fmt.Errorf("%s: %w", Redact(arg), err)
		}
		key, _ := SourceURL(arg) // Identity checked it
		return Selector{Arg: Redact(arg), Ident: ident, Site: model.SiteOfURL(key)}, nil
	}
	if arg == "" || strings.ContainsAny(arg, "/?#@ ") {
		return Selector{}, fmt.Errorf("%q is neither a source's URL nor a site (a registrable domain such as example.com)", arg)
	}
	host, err := hostASCII(arg)
	if err != nil {
		return Selector{}, fmt.Errorf("%q is neither a source's URL nor a site: %w", arg, err)
	}
	if site := model.Site(host); site != host {
		return Selector{}, fmt.Errorf("%q is a host of the site %s: give a source's URL (https://%s/) or the site %s", arg, site, host, site)
	}
	return Selector{Arg: arg, Site: host}, nil
}

// hostASCII is host as model.Site writes a site: its ASCII form, lowercase,
// no final dot, no port (a site has none).
func hostASCII(host string) (string, error) {
	key, err := SourceURL("http://" + host + "/")
	if err != nil {
		return "", err
	}
	h := strings.TrimSuffix(strings.TrimPrefix(key, "http://"), "/")
	if strings.Contains(h, ":") && !strings.HasSuffix(h, "]") {
		return "", fmt.Errorf("a site has no port")
	}
	return strings.TrimSuffix(h, "."), nil
}

package sqlstore

import "corpus.blog/corpusbot/internal/web"

// SetMaxUnreachable lowers the bound of stateExpr's list of sites, so that
// the suite runs the path taken past it too.
func SetMaxUnreachable(d web.Data, n int) { d.(*siteData).maxUnreachable = n }

package readability

import (
	"sync"

	"golang.org/x/net/html"
)

// The slabs of grabArticle's copies of the document (corpusbot). Every pass
// copies the whole document into a node slab and an attribute slab
// (cloneTree), the largest allocation of a parse; a caller that is done
// with a parse's nodes can give the slabs back with Recycle, for the next
// parse to copy into.
//
// Every slab in a pool is zero throughout (Recycle clears what a parse
// used), so a copy made into a recycled slab is the copy made into a new
// one: no field of a node or attribute is left from an earlier parse, and
// no string of an earlier parse is kept alive by a pooled slab.
var (
	nodeSlabs sync.Pool // of *[]html.Node, len == cap, all zero
	attrSlabs sync.Pool // of *[]html.Attribute, len == cap, all zero
)

// maxPooledSlab is the largest slab, in nodes or attributes, that is
// pooled: larger ones (a page of tens of thousands of elements, rare) are
// made for their parse and left to the garbage collector, so that one
// outsized page does not keep megabytes in the pools.
const maxPooledSlab = 1 << 16

// slabSize is the capacity made for a slab of n: a little more than n, so
// that the next page, a little larger, can use it.
func slabSize(n int) int { return n + n/4 + 64 }

// nodeSlab returns n zero nodes in one slice, from the pool when it has a
// slab large enough, and keeps it for Recycle.
func (ps *Parser) nodeSlab(n int) []html.Node {
	if n > maxPooledSlab {
		return make([]html.Node, n)
	}
	p, _ := nodeSlabs.Get().(*[]html.Node)
	if p == nil || cap(*p) < n {
		// None, or too small for this page: left to the collector, and a
		// new one made (the pool's slabs grow to its pages' sizes).
		s := make([]html.Node, slabSize(n))
		p = &s
	}
	*p = (*p)[:n]
	ps.nodeSlabs = append(ps.nodeSlabs, p)
	return *p
}

// attrSlab is nodeSlab for attributes.
func (ps *Parser) attrSlab(n int) []html.Attribute {
	if n == 0 || n > maxPooledSlab {
		return make([]html.Attribute, n)
	}
	p, _ := attrSlabs.Get().(*[]html.Attribute)
	if p == nil || cap(*p) < n {
		s := make([]html.Attribute, slabSize(n))
		p = &s
	}
	*p = (*p)[:n]
	ps.attrSlabs = append(ps.attrSlabs, p)
	return *p
}

// Recycle gives the slabs of the parser's parses back to the pools, for
// the parses that come next (in any goroutine) to copy their documents
// into. Call it only when no node of those parses is used any more: the
// Article's Node, every node under it and every node of the document the
// parse was given may be overwritten by another parse once Recycle has
// returned. It also drops the parser's references to the document, so it
// is a good end to a parse whose results have been read. Without it the
// slabs are garbage like any other.
func (ps *Parser) Recycle() {
	for _, p := range ps.nodeSlabs {
		clear(*p)
		*p = (*p)[:cap(*p)]
		nodeSlabs.Put(p)
	}
	for _, p := range ps.attrSlabs {
		clear(*p)
		*p = (*p)[:cap(*p)]
		attrSlabs.Put(p)
	}
	clear(ps.nodeSlabs)
	clear(ps.attrSlabs)
	ps.nodeSlabs, ps.attrSlabs = ps.nodeSlabs[:0], ps.attrSlabs[:0]
	ps.doc = nil
	ps.attempts = nil
	ps.summaries = nil
}

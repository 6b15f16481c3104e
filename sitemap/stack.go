package sitemap

// Bounds on what a document can make the decoder hold, so that memory stays
// constant however the document is nested: real sitemaps and feeds nest a
// dozen levels and declare a handful of namespaces.
const (
	maxDepth     = 1024
	maxNameBytes = 64 << 10
	maxNSBytes   = 256 << 10
)

// elemStack is the names of the open elements, to check that each end tag
// closes the element it should.
type elemStack struct {
	names []byte // the qualified names, one after the other
	ends  []int  // where each name ends in names
}

func (st *elemStack) push(name []byte) bool {
	if len(st.ends) >= maxDepth || len(st.names)+len(name) > maxNameBytes {
		return false
	}
	st.names = append(st.names, name...)
	st.ends = append(st.ends, len(st.names))
	return true
}

func (st *elemStack) top() []byte {
	n := len(st.ends)
	if n == 0 {
		return nil
	}
	start := 0
	if n > 1 {
		start = st.ends[n-2]
	}
	return st.names[start:st.ends[n-1]]
}

func (st *elemStack) pop() {
	n := len(st.ends)
	if n == 0 {
		return
	}
	st.ends = st.ends[:n-1]
	if n > 1 {
		st.names = st.names[:st.ends[n-2]]
	} else {
		st.names = st.names[:0]
	}
}

// binding is one namespace declaration in scope.
type binding struct {
	prefix, uri string
	depth       int // of the element that declared it
}

// nsStack is the namespace declarations in scope, innermost last.
type nsStack struct {
	b    []binding
	size int
}

const xmlNS = "http://www.w3.org/XML/1998/namespace"

func (ns *nsStack) push(prefix, uri string, depth int) bool {
	ns.size += len(prefix) + len(uri) + 32
	if ns.size > maxNSBytes {
		return false
	}
	ns.b = append(ns.b, binding{prefix, uri, depth})
	return true
}

// pop leaves the declarations of the element at depth.
func (ns *nsStack) pop(depth int) {
	for n := len(ns.b); n > 0 && ns.b[n-1].depth >= depth; n-- {
		ns.size -= len(ns.b[n-1].prefix) + len(ns.b[n-1].uri) + 32
		ns.b = ns.b[:n-1]
	}
}

// lookup is the namespace a prefix stands for, as encoding/xml resolves it:
// "xml" is always the XML namespace, no prefix is the default namespace (none
// when undeclared), and an undeclared prefix stands for itself.
func (ns *nsStack) lookup(prefix []byte) string {
	switch string(prefix) {
	case "xml":
		return xmlNS
	case "xmlns":
		return "xmlns"
	}
	for i := len(ns.b) - 1; i >= 0; i-- {
		if ns.b[i].prefix == string(prefix) {
			return ns.b[i].uri
		}
	}
	return string(prefix)
}

// corpusbot: parses that reuse what earlier parses allocated (see ../CORPUSBOT.md).

package html

import "sync"

// Buffers and nodes reused from parse to parse (corpusbot). Both are
// options: Parse, ParseWithOptions without them and every other function
// of the package allocate as upstream does.

// tokenizerBufs holds tokenizer buffers (*[]byte, len == cap) that parses
// made with ParseOptionPooledBuffer gave back.
var tokenizerBufs sync.Pool

// maxPooledBuf is the capacity above which a tokenizer buffer is not
// given back to the pool: a page with a token of megabytes (a huge inline
// script) does not keep its buffer after it.
const maxPooledBuf = 1 << 20

// ParseOptionPooledBuffer makes the parse's tokenizer read into a buffer
// taken from a pool, and give it back, grown as it may have grown, when the
// parse returns. The tokenizer reads the document through a window of its
// own (4 KiB to start with, doubled whenever one token, a long script or
// text, no longer fits in half of it), which for a large page is reallocated
// several times a parse; with the option, a parse after the first starts
// with a window of the size the pages before it needed. Nothing of the
// window outlives the parse (the tree's strings are copies), so the tree is
// the same with or without it. ParseWithOptions reads it;
// ParseFragmentWithOptions ignores it. (corpusbot)
func ParseOptionPooledBuffer() ParseOption {
	return func(p *parser) {
		p.pooledBuf = true
	}
}

// takeBuffer returns a pooled buffer for the tokenizer, or nil if the pool
// has none.
func (p *parser) takeBuffer() []byte {
	b, _ := tokenizerBufs.Get().(*[]byte)
	if b == nil {
		return nil
	}
	p.bufHeader = b
	return *b
}

// giveBuffer puts the tokenizer's buffer, at its full capacity, in the
// pool, after the parse.
func (p *parser) giveBuffer() {
	buf := p.tokenizer.buf
	p.tokenizer.buf, p.tokenizer.fast = nil, nil
	if cap(buf) > maxPooledBuf {
		return
	}
	b := p.bufHeader
	if b == nil {
		b = new([]byte)
	}
	*b = buf[:cap(buf)]
	tokenizerBufs.Put(b)
}

// recycledChunk is the number of nodes in a chunk of a NodeRecycler.
const recycledChunk = 256

// nodeChunk is a chunk of nodes newNode hands out for a parse made with
// ParseOptionNodeRecycler.
type nodeChunk [recycledChunk]Node

// nodeChunks holds the chunks (*nodeChunk) NodeRecyclers gave back, all
// zero.
var nodeChunks sync.Pool

// A NodeRecycler holds the chunks of nodes of the parses made with
// ParseOptionNodeRecycler, for its Recycle to give them to later parses.
// Its zero value is ready to use; it is not safe for concurrent use (one
// goroutine's parses, recycled by that goroutine). (corpusbot)
type NodeRecycler struct {
	chunks []*nodeChunk
}

// ParseOptionNodeRecycler makes the parse's element and text nodes in
// chunks of 256 taken from a pool, which r keeps until r.Recycle gives them
// back. Without it, as upstream, they are allocated for the parse and left
// to the garbage collector. The tree is the same with or without it: a
// pooled chunk is zero throughout, as a new one. (corpusbot)
func ParseOptionNodeRecycler(r *NodeRecycler) ParseOption {
	return func(p *parser) {
		p.recycler = r
	}
}

// chunk returns a zero chunk of nodes, from the pool if it has one, and
// keeps it for Recycle.
func (r *NodeRecycler) chunk() []Node {
	c, _ := nodeChunks.Get().(*nodeChunk)
	if c == nil {
		c = new(nodeChunk)
	}
	r.chunks = append(r.chunks, c)
	return c[:]
}

// Recycle clears the nodes of r's parses and gives them back to the pool,
// for the parses that come next (in any goroutine). Call it only when no
// node of those parses is used any more: once it has been called every
// element and text node of their trees is zero, and may be handed to
// another parse. Nodes the caller made and put in a tree are its own.
func (r *NodeRecycler) Recycle() {
	for i, c := range r.chunks {
		clear(c[:])
		nodeChunks.Put(c)
		r.chunks[i] = nil
	}
	r.chunks = r.chunks[:0]
}

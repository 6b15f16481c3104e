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
// the same with or without it. (corpusbot)
func ParseOptionPooledBuffer() ParseOption {
	return func(p *parser) {
		p.pooledBuf = true
	}
}

// takeBuffer gives the tokenizer a pooled buffer, if the pool has one.
func (p *parser) takeBuffer() {
	if b, _ := tokenizerBufs.Get().(*[]byte); b != nil {
		p.tokenizer.buf = (*b)[:0]
		p.tokenizer.setFast()
		p.bufHeader = b
	}
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

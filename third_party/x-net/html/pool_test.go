// corpusbot: tests of pool.go (see ../CORPUSBOT.md).

package html

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	a "golang.org/x/net/html/atom"
)

// dumpTree writes every node of n's tree, in document order, with all it
// holds: type, atom, data, namespace and attributes.
func dumpTree(w *strings.Builder, n *Node, depth int) {
	fmt.Fprintf(w, "%d %d %d %q %q %q\n", depth, n.Type, n.DataAtom, n.Data, n.Namespace, n.Attr)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Parent != n {
			w.WriteString("wrong parent\n")
		}
		dumpTree(w, c, depth+1)
	}
}

// poolDocs are documents with tokens longer than the tokenizer's first
// window (a script, a text, an attribute value, a comment), around which
// the pooled buffer and upstream's differ most, and the extractor's test
// pages.
func poolDocs(t *testing.T) [][]byte {
	long := strings.Repeat("Hawthorn &amp; hazel, laid\r\nalong the lane. ", 2000)
	docs := []string{
		"",
		"<p>short",
		"<html><head><script>" + strings.Repeat("var a = '<b>';\n", 5000) + "</script></head><body><p>x</p></body></html>",
		"<body><p>" + long + "</p><p title=\"" + long + "\">y</p><!--" + long + "--><textarea>" + long + "</textarea>",
		"<svg><![CDATA[" + long + "]]></svg><math><mi>" + long,
		"<table><tr><td>" + long + "<td>" + strings.Repeat("<i>a</i>", 3000),
	}
	var out [][]byte
	for _, d := range docs {
		out = append(out, []byte(d))
	}
	pages, _ := filepath.Glob("../../../internal/extract/testdata/*.html")
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestPooledBufferSameTree: a parse with ParseOptionPooledBuffer, with a
// buffer some other document left, makes Parse's tree.
func TestPooledBufferSameTree(t *testing.T) {
	docs := poolDocs(t)
	want := make([]string, len(docs))
	for i, d := range docs {
		doc, err := Parse(bytes.NewReader(d))
		if err != nil {
			t.Fatal(err)
		}
		var w strings.Builder
		dumpTree(&w, doc, 0)
		want[i] = w.String()
	}
	for round := range 3 {
		for k := range docs {
			// Documents in a different order each round, so that each is
			// parsed with buffers grown by others.
			i := (k*(round+1) + round) % len(docs)
			doc, err := ParseWithOptions(bytes.NewReader(docs[i]), ParseOptionPooledBuffer())
			if err != nil {
				t.Fatal(err)
			}
			var w strings.Builder
			dumpTree(&w, doc, 0)
			if w.String() != want[i] {
				t.Fatalf("document %d: the tree with a pooled buffer differs", i)
			}
		}
	}
}

// TestNodeRecyclerSameTree: a parse with ParseOptionNodeRecycler, with
// chunks that earlier parses used, changed and recycled, makes Parse's
// tree; so does a fragment's parse.
func TestNodeRecyclerSameTree(t *testing.T) {
	docs := poolDocs(t)
	want := make([]string, len(docs))
	for i, d := range docs {
		doc, err := Parse(bytes.NewReader(d))
		if err != nil {
			t.Fatal(err)
		}
		var w strings.Builder
		dumpTree(&w, doc, 0)
		want[i] = w.String()
	}
	var r NodeRecycler
	for round := range 3 {
		for k := range docs {
			i := (k*(round+1) + round) % len(docs)
			doc, err := ParseWithOptions(bytes.NewReader(docs[i]), ParseOptionNodeRecycler(&r), ParseOptionPooledBuffer())
			if err != nil {
				t.Fatal(err)
			}
			var w strings.Builder
			dumpTree(&w, doc, 0)
			if w.String() != want[i] {
				t.Fatalf("document %d: the tree with recycled nodes differs", i)
			}
			// Dirty every node, as a caller may, before recycling.
			var all []*Node
			for n := range doc.Descendants() {
				all = append(all, n)
			}
			for _, n := range all {
				n.Data, n.Namespace, n.Attr = "dirty", "dirty", []Attribute{{Key: "dirty"}}
				n.Parent, n.FirstChild, n.LastChild, n.PrevSibling, n.NextSibling = n, n, n, n, n
			}
			r.Recycle()
		}
	}
	const frag = "<td>a<b>b</b><i>c"
	want1, err := ParseFragment(strings.NewReader(frag), &Node{Type: ElementNode, Data: "tr", DataAtom: a.Tr})
	if err != nil {
		t.Fatal(err)
	}
	got1, err := ParseFragmentWithOptions(strings.NewReader(frag), &Node{Type: ElementNode, Data: "tr", DataAtom: a.Tr}, ParseOptionNodeRecycler(&r))
	if err != nil {
		t.Fatal(err)
	}
	if len(got1) != len(want1) {
		t.Fatalf("fragment: %d nodes, want %d", len(got1), len(want1))
	}
	for i := range got1 {
		var a, b strings.Builder
		dumpTree(&a, want1[i], 0)
		dumpTree(&b, got1[i], 0)
		if a.String() != b.String() {
			t.Fatalf("fragment: the tree with recycled nodes differs:\n%s\n%s", b.String(), a.String())
		}
	}
	r.Recycle()
}

package readability

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
)

// cloneDocs are documents of every shape cloneTree meets: empty, text
// only, attributes with namespaces (SVG and MathML in HTML), comments, a
// doctype, templates, deep nesting.
var cloneDocs = []string{
	"",
	"text only",
	`<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><p class="a b" id=x>one<br>two</p><!-- c --></body></html>`,
	`<body><svg xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#a"/><foreignObject><p>in</p></foreignObject></svg><math><mi>x</mi></math></body>`,
	`<table><tr><td>a<td>b</table><template><p>t</p></template><select><option>o</select>`,
	`<head><script type="application/ld+json">{}</script><script type="Application/LD+JSON">{}</script></head><body><script type="application/ld+json" type="x">{}</script><svg><script type="application/ld+json"></script></svg><script>x</script></body>`,
	strings.Repeat("<div>", 600) + "deep" + strings.Repeat("</div>", 600),
}

// sameTree reports where the trees under a and b first differ: in a
// node's fields (Type, DataAtom, Data, Namespace, attributes, nil or not)
// or in their links.
func sameTree(t *testing.T, a, b *html.Node) {
	t.Helper()
	if a.Parent != nil || b.Parent != nil || a.NextSibling != nil || b.NextSibling != nil || a.PrevSibling != nil || b.PrevSibling != nil {
		t.Fatal("a copy's root has a parent or siblings")
	}
	for a != nil || b != nil {
		if a == nil || b == nil {
			t.Fatalf("one tree ends first: %v %v", a, b)
		}
		if a.Type != b.Type || a.DataAtom != b.DataAtom || a.Data != b.Data || a.Namespace != b.Namespace ||
			(a.Attr == nil) != (b.Attr == nil) || !slices.Equal(a.Attr, b.Attr) {
			t.Fatalf("nodes differ: %+v and %+v", *a, *b)
		}
		for _, l := range []struct{ a, b *html.Node }{{a.FirstChild, b.FirstChild}, {a.LastChild, b.LastChild}, {a.NextSibling, b.NextSibling}, {a.PrevSibling, b.PrevSibling}} {
			if (l.a == nil) != (l.b == nil) {
				t.Fatalf("links differ at %q", a.Data)
			}
		}
		if c := a.FirstChild; c != nil && (c.Parent != a || b.FirstChild.Parent != b) {
			t.Fatalf("a child of %q has the wrong parent", a.Data)
		}
		if c := a.NextSibling; c != nil && (c.PrevSibling != a || b.NextSibling.PrevSibling != b) {
			t.Fatalf("a sibling of %q has the wrong previous sibling", a.Data)
		}
		a, b = nextNode(a), nextNode(b)
	}
}

// nextNode is the node after n in document order, through its parents'
// siblings.
func nextNode(n *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n.NextSibling == nil {
		n = n.Parent
	}
	if n == nil {
		return nil
	}
	return n.NextSibling
}

func checkClone(t *testing.T, doc *html.Node) {
	t.Helper()
	want := dom.Clone(doc, true)
	got := cloneTree(doc)
	sameTree(t, want, got)
	// A subtree too: the copy stops at its root, not at the root's siblings.
	if body := getElementByTagName(doc, "body"); body != nil {
		sameTree(t, dom.Clone(body, true), cloneTree(body))
	}
	checkFinders(t, doc)
	// An attribute added to one node of the copy is that node's alone.
	for n := got; n != nil; n = nextNode(n) {
		if n.Type == html.ElementNode {
			before := slices.Clone(n.Attr)
			next := nextNode(n)
			var nextAttr []html.Attribute
			if next != nil {
				nextAttr = slices.Clone(next.Attr)
			}
			dom.SetAttribute(n, "data-added", "1")
			if !slices.Equal(n.Attr[:len(before)], before) || next != nil && !slices.Equal(next.Attr, nextAttr) {
				t.Fatalf("adding an attribute to %q changed another's", n.Data)
			}
		}
	}
	checkRecycledClone(t, doc, want)
}

// recycler is one Parser for the whole test, so that each document is
// copied into the slabs the documents before it used, dirtied and gave
// back with Recycle.
var recycler Parser

// checkRecycledClone: a copy into recycled slabs (Parser.cloneTree) is
// dom.Clone's copy, whatever the copies before it were and however they
// were changed.
func checkRecycledClone(t *testing.T, doc, want *html.Node) {
	t.Helper()
	for range 2 {
		got := recycler.cloneTree(doc)
		sameTree(t, want, got)
		// Dirty every field, as a parse may, before giving the slabs back.
		var all []*html.Node
		for n := got; n != nil; n = nextNode(n) {
			all = append(all, n)
		}
		for _, n := range all {
			n.Namespace, n.Data = "dirty", "dirty"
			for i := range n.Attr {
				n.Attr[i].Namespace = "dirty"
			}
			if n.Type == html.ElementNode {
				dom.SetAttribute(n, "data-added", "1")
			}
			n.Parent, n.FirstChild, n.LastChild, n.PrevSibling, n.NextSibling = n, n, n, n, n
		}
		recycler.Recycle()
	}
}

// TestCloneTreeMatchesClone: cloneTree copies what dom.Clone copies, and
// the element finders find what dom's find, on the documents above and on
// the extractor's test pages.
func TestCloneTreeMatchesClone(t *testing.T) {
	for _, s := range cloneDocs {
		doc, err := html.Parse(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		checkClone(t, doc)
	}
	pages, _ := filepath.Glob("../../internal/extract/testdata/*.html")
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		checkClone(t, doc)
	}
	t.Logf("%d test pages", len(pages))
}

func FuzzCloneTree(f *testing.F) {
	for _, s := range cloneDocs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		checkClone(t, doc)
	})
}

// checkFinders: the element finders give what dom's do, for every tag of
// doc and for several at once.
func checkFinders(t *testing.T, doc *html.Node) {
	t.Helper()
	if got, want := documentElement(doc), dom.DocumentElement(doc); got != want {
		t.Fatalf("documentElement: %v, want %v", got, want)
	}
	tags := map[string]bool{"*": true, "nothing": true}
	for n := doc; n != nil; n = nextNode(n) {
		if n.Type == html.ElementNode {
			tags[n.Data] = true
		}
	}
	if got, want := jsonLDScripts(doc), dom.QuerySelectorAll(doc, `script[type="application/ld+json"]`); !slices.Equal(got, want) {
		t.Fatalf("jsonLDScripts: %d elements, want %d", len(got), len(want))
	}
	for _, root := range []*html.Node{doc, getElementByTagName(doc, "body")} {
		if root == nil {
			continue
		}
		for tag := range tags {
			if got, want := getElementsByTagName(root, tag), dom.GetElementsByTagName(root, tag); !slices.Equal(got, want) {
				t.Fatalf("getElementsByTagName(%q): %d elements, want %d", tag, len(got), len(want))
			}
		}
		for _, names := range [][]string{{"p"}, {"h1", "h2"}, {"img", "picture", "figure", "video", "audio", "source"}, {"a", "a"}, {"*", "div"}} {
			var want []*html.Node
			for _, name := range names {
				want = append(want, dom.GetElementsByTagName(root, name)...)
			}
			if got := getElementsByTagNames(root, names...); !slices.Equal(got, want) {
				t.Fatalf("getElementsByTagNames(%q): %d elements, want %d", names, len(got), len(want))
			}
		}
	}
}

package sourcelist

import "testing"

func TestParseSelector(t *testing.T) {
	for _, tc := range []struct {
		arg, ident, site, err string
	}{
		{arg: "https://Blog.Example.com/", ident: "https://blog.example.com/", site: "example.com"},
		{arg: "https://a.example/blog/", ident: "https://a.example/blog", site: "a.example"},
		{arg: "example.com", site: "example.com"},
		{arg: "EXAMPLE.com.", site: "example.com"},
		{arg: "bücher.example", site: "xn--bcher-kva.example"},
		{arg: "alice.github.io", site: "alice.github.io"},
		{arg: "127.0.0.1", site: "127.0.0.1"},
		{arg: "blog.example.com", err: `"blog.example.com" is a host of the site example.com: give a source's URL (https://blog.example.com/) or the site example.com`},
		{arg: "example.com/blog", err: `"example.com/blog" is neither a source's URL nor a site (a registrable domain such as example.com)`},
		{arg: "example.com:8080", err: `"example.com:8080" is neither a source's URL nor a site: a site has no port`},
		{arg: "", err: `"" is neither a source's URL nor a site (a registrable domain such as example.com)`},
		{arg: "https://user:pw@a.example/", err: "x"},
		{arg: "ftp://a.example/", err: "x"},
	} {
		sel, err := ParseSelector(tc.arg)
		if tc.err != "" {
			if err == nil || (tc.err != "x" && err.Error() != tc.err) {
				t.Errorf("ParseSelector(%q) = %+v, %v; want error %q", tc.arg, sel, err, tc.err)
			}
			continue
		}
		if err != nil || sel.Ident != tc.ident || sel.Site != tc.site || sel.IsSite() != (tc.ident == "") {
			t.Errorf("ParseSelector(%q) = %+v, %v; want ident %q site %q", tc.arg, sel, err, tc.ident, tc.site)
		}
	}
}

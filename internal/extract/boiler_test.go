package extract

import "testing"

func TestBoilerBlock(t *testing.T) {
	for b, want := range map[string]bool{
		"By Jane Doe":                                    true,
		"By TOM KRISHER, AP Auto Writer":                 true,
		"Updated Nov 19, 9:41 AM;Posted Nov 18, 8:19 PM": true,
		"PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:05, Tue, Nov 19, 2019": true,
		"Published 1 day ago": true,
		"China has warned they will cease control of Hong Kong (Image: GETTY )": true,
		"© Aaron Schwartz":                                       true,
		"Alex Wong | Getty Images":                               true,
		"Officials in Mongolia Credit: The Siberian Times":       true,
		"SEE MORE: Hong Kong protests: 800 students under siege": true,
		"You may also like...":                                   true,
		"Whatsapp Facebook Pint Baixar":                          true,
		"Tags: love, self-esteem, reflection":                    true,
		"Filed under allotments, water, committee":               true,
		"Image 1 of / 9":                                         true,
		"Caption":                                                true,
		"(Reporting by Greg Roumeliotis; Editing by Ann)":        true,
		"Join our Space Forums to keep talking space!":           true,
		"Lesen Sie auch: Der Kompost dampft":                     true,
		"[Related: The trough campaign]":                         true,
		"This website uses cookies to improve your experience.":  true,
		// Text of the article.
		"Joining the society costs ten pounds a year.":            false,
		"Reporting the leak took three phone calls.":              false,
		"Tagged birds are easier to count.":                       false,
		"Image 1 of the series shows the trough.":                 false,
		"By the end of the week the troughs were mended.":         false,
		"Related matters were left for another meeting, as usual": false,
		"Relatedly, nobody came.":                                 false,
		"Updated guidance is expected.":                           false,
		"Photographs of the troughs were taken for the insurer.":  false,
		"Share and share alike, the committee said.":              false,
		"": false,
	} {
		if got := boilerBlock(b); got != want {
			t.Errorf("boilerBlock(%q) = %v, want %v", b, got, want)
		}
	}
}

func TestHeadlineLink(t *testing.T) {
	for _, c := range []struct {
		b      string
		linked int
		want   bool
	}{
		{"TAYLOR SWIFT CLEARED TO PERFORM HITS AT AMAs", 38, true},
		{"TAYLOR SWIFT CLEARED TO PERFORM HITS AT AMAs", 0, false}, // capitals, but not a link
		{"Read the committee's minutes here", 30, false},           // a link, but a sentence
		{"NASA", 4, false}, // too short to be a headline
	} {
		if got := headlineLink(c.b, c.linked); got != c.want {
			t.Errorf("headlineLink(%q, %d) = %v", c.b, c.linked, got)
		}
	}
}

func TestWithoutSelf(t *testing.T) {
	text := "First.\n\nhttps://b.example/p/1\n\nSee https://b.example/p/1 for more."
	want := "First.\n\nSee https://b.example/p/1 for more."
	if got := withoutSelf(text, "https://b.example/p/1", ""); got != want {
		t.Errorf("got %q", got)
	}
}

// Package extract reads a fetched HTML page into what the crawler keeps of
// it: the title, the article's plain text (kept privately), its publication
// date, the citations in its body, the page's robots directives and whether
// it is a client-rendered shell. It does no I/O and is safe for concurrent
// use.
//
// Choices worth knowing, all deliberate:
//   - Input: only the first MaxBytes (5 MB, the fetcher's body cap) are read.
//     The encoding is found as browsers find it: a BOM, then the charset of
//     the response's Content-Type (ParseResponse), then <meta charset> or
//     http-equiv Content-Type anywhere in the head (not only its first
//     1,024 bytes), then UTF-8 if the bytes are (nearly all) valid UTF-8,
//     then ICU's detection, else windows-1252. Bytes that are valid UTF-8
//     with multi-byte sequences are read as UTF-8 even under a single-byte
//     label, since mislabelled UTF-8 is common and the reverse next to
//     impossible. Title and Text are valid UTF-8 in NFC, with soft hyphens,
//     zero-width spaces, word joiners and stray BOMs taken out of words.
//     The one error is the HTML parser's: it refuses a page with more than
//     512 elements open at once, which no real page needs.
//   - Robots: <meta name="robots"> and <meta name="AGENT"> (the product
//     token, compared case-insensitively) both apply; a tag naming another
//     crawler (googlebot) does not. Content tokens are split on commas,
//     semicolons and white space and compared case-insensitively: noindex,
//     nofollow, and none (both); anything else (all, index, follow, max-snippet…) changes
//     nothing. Splitting on white space too means "noindex nofollow", a
//     common mistake, is obeyed, the polite reading. The X-Robots-Tag header
//     is the caller's (fetch.XRobotsTag).
//   - Text and links come from go-readability's article node, so navigation,
//     sidebars and footers that readability discards give no citations; <nav>,
//     <aside> and <footer> elements outside any <article> or <main> are taken
//     out before readability runs (after the facts in them are read), so that
//     it copies and scores less of the page. Readability is told to keep class
//     names, which the pruning below reads. "Skip to content" links are
//     removed first, since readability keeps them when it takes a whole page
//     wrapper, and embedded posts (blockquote.twitter-tweet…) are lifted out
//     of wrappers whose names make readability drop them. The text is written
//     block by block (renderText): each paragraph, heading, list item, quote,
//     table row and pre block its own block, blocks separated by one blank
//     line, <br> a line break within one, pre blocks as written. Left out of
//     it, and so of the citations: hidden and aria-hidden elements;
//     figcaptions; elements of at most 400 characters whose class or id names
//     a caption, credit, byline, share bar, related, newsletter, promo or
//     author box, a hover card or a cookie notice; the card of any hover card
//     (a <span> of at least 150 characters opening with a link, with three
//     links or more making four fifths of its text: only that first link, the
//     name, is kept); lists of short items that are 70% link text; an
//     <article> following another (a listing, or a post and teasers of others:
//     the first is the page's), and likewise a block following one of its
//     shape (tag and class) when both open with a headline linking to the same
//     site (a round-up of products or of other sites' pages is the post, and
//     is kept); a list of teasers of other stories (three or more children of
//     one shape, each at most 600 characters holding a headline link: a
//     heading that is a link, a long link it opens with, or a thumbnail
//     linking to the same site), cut to its first entry instead when it is
//     four fifths of the block and links to the same site (a listing); short
//     blocks that read as a byline, dateline, newsletter pitch (also one that
//     closes on "Sign up…" and names a newsletter), picture credit (also a
//     caption ending in a credit in parentheses), promotion, agency credit,
//     tag line, a post's meta line (date, author, category and tags as parts
//     of one line, in the common languages), widget label or share bar, an
//     unrendered WordPress shortcode, a headline link in capitals, a run of
//     three or more headline-long links that is seven tenths link text and
//     does not end as a sentence does ("DON'T MISS … [INSIGHT] … [VIDEO]"),
//     and a block that is only the page's own URL. When that leaves nothing
//     (a block of teasers only), the block is written again without cutting
//     entries. A Noindex or Shell page has Text "".
//   - Markdown: the same blocks, marked in the same walk (markdown.go):
//     h1–h6 as ATX headings of their level (one line), list items as "- "
//     or "N. " (an <ol start> counted from), nested lists and an item's
//     later blocks indented under their marker, quotes as "> " (the blocks
//     of one quote kept in it), pre blocks as fenced code written as is (a
//     fence longer than any run of backticks inside), a <br> as a hard
//     break; in running text the characters Markdown reads as markup are
//     escaped (mdtext.Line). Each block is normalised as Text is, so the
//     Markdown holds Text's words in Text's order; it is "" when Text is.
//   - Links: <a href> in the text kept, resolved against the first <base href>
//     (itself resolved against the page URL; ignored if not http(s)) and
//     then the page URL; fragments removed; only http and https with a host;
//     a link back to the page itself is not a citation; a URL longer than
//     MaxURLLength is dropped (so that a huge base cannot be copied into
//     every link); the host is lower-cased; duplicates dropped, document
//     order kept. Nofollow gives nil, and so does an article without links.
//     Links carrying rel="nofollow" or "sponsored" are still kept: they are
//     recorded as citations, never fetched.
//   - Title: readability's (JSON-LD headline or name, og:title, else
//     <title> with a trailing " | Site name" taken off), white space
//     collapsed. It is kept for noindex and shell pages too.
//   - Metadata is what the page states, read in the same single walk of
//     the tree as the robots directives, base, canonical, shell and skip
//     links (readFacts), before readability rearranges it. JSON-LD: the
//     first object typed as an article, else as a web page, anywhere in a
//     block, an array or an @graph, whatever its @context; {"@id"}
//     references are followed. Published: article:published_time, JSON-LD
//     datePublished, Parse.ly (parsely-pub-date or the parsely-page JSON),
//     itemprop datePublished, a <time> marked as the publication date
//     (pubdate, class published or entry-date), the first <time datetime>
//     inside an <article>, the first in the extracted article; Modified
//     likewise (article:modified_time, dateModified, og:updated_time).
//     Dates that internal/dates can read, always UTC. Author: JSON-LD
//     author, meta author, article:author (not a URL), Parse.ly, dc.creator,
//     itemprop author, <a rel=author>, a byline element holding only a name
//     ("By " taken off). Description, site name (og:site_name, JSON-LD
//     publisher), tags (article:tag, JSON-LD keywords, Parse.ly), licence
//     (rel=license, JSON-LD license) and image (og:image, JSON-LD image,
//     twitter:image; absolute http(s)). Language: the declared one (html
//     lang, Content-Language, JSON-LD inLanguage, og:locale) as an ISO 639-1
//     code, unless detection (whatlanggo) is certain the text is in another
//     language that is not a close neighbour; detected when none is
//     declared. A field the page does not state is empty.
//   - Shell: the visible text of the body (everything outside script, style,
//     noscript, template and svg, white space runs counted once) is under
//     ShellMaxText (200) characters, and either
//     (a) there is an app mount point — an element with id root, app,
//     __next, __nuxt, ___gatsby, svelte or react-root, an <app-root>, or an
//     ng-app, ng-view, ui-view or data-reactroot attribute — holding under
//     MountMaxText (24) characters ("Loading…" is allowed), or
//     (b) there is at least one executable <script> (external, module or
//     inline JavaScript; JSON data blocks do not count) and the body holds
//     under BareMaxText (32) characters.
//     The mount point must be empty, not merely present, so that a
//     server-rendered Next.js or Nuxt page with a short post in it is not a
//     shell; and a page with scripts but no mount point must be next to
//     empty, so that a three-sentence post on a theme full of scripts is not
//     one either. A shell that carries its article in its own data, of at
//     least ShellMaxText characters, is a page with that text, read with no
//     script run and nothing more fetched: JSON-LD articleBody, else the
//     longest body-like member (content, body, html…) of Next.js's
//     __NEXT_DATA__, of Nuxt 3's __NUXT_DATA__ payload (devalue's flat
//     array, its references followed within bounds), or of Nuxt 2's
//     window.__NUXT__ when what follows the "=" is plain JSON (usually it
//     is a function call, a script, and is not read). A body is a string,
//     rendered as text when it is HTML, or a Nuxt Content document tree.
package extract

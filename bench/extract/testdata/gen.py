#!/usr/bin/env python3
"""Writes the extraction benchmark's pages: NAME.html, the page as a site
would serve it, and NAME.txt, the article's text as a careful reader would
cut it out (no title, byline, dates, captions, credits, share bars, related
links, tags or comments; subheadings, list items, quotes, tables and code
kept). Each page follows a kind of template common on the web. The pages
are made up here; run this script to rewrite them."""
import random

rnd = random.Random(43)
WORDS = """garden soil compost water trough committee plot season harvest seed bean carrot onion
potato frost rain spring summer autumn winter mulch worm slug path shed gate neighbour tool spade
fork barrow bed row weed root leaf stem flower fruit tree hedge pond bird bee wasp sun shade wind
morning evening week year council rent lease meeting minutes notice board secretary treasurer""".split()
STOP = "the a of and to in that it was for on with as his her at by from this but not".split()

def sentence(n=None):
    n = n or rnd.randint(9, 22)
    ws = [rnd.choice(WORDS if rnd.random() < 0.6 else STOP) for _ in range(n)]
    ws[0] = ws[0].capitalize()
    return " ".join(ws) + rnd.choice([".", ".", ".", "?", "!"])

def para(k=None):
    return " ".join(sentence() for _ in range(k or rnd.randint(2, 5)))

def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;")

NAV = '<header class="site-header"><a class="skip-link" href="#main">Skip to content</a><nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/about/">About</a></li><li><a href="/garden/">Garden</a></li><li><a href="/contact/">Contact</a></li></ul></nav></header>'
SIDEBAR = '<aside class="sidebar"><section class="widget"><h3>Recent posts</h3><ul>' + "".join(f'<li><a href="/p/{i}/">{esc(sentence(5))}</a></li>' for i in range(6)) + '</ul></section><section class="widget"><h3>Archives</h3><ul><li><a href="/2026/03/">March 2026</a></li><li><a href="/2026/02/">February 2026</a></li></ul></section></aside>'
FOOTER = '<footer class="site-footer"><p>© 2026 Plot Notes. All rights reserved.</p><p><a href="/privacy/">Privacy</a> · <a href="/terms/">Terms</a></p></footer>'
COMMENTS = '<section id="comments" class="comments-area"><h2>3 comments</h2>' + "".join(f'<article class="comment"><footer class="comment-meta">Reader {i} says:</footer><div class="comment-content"><p>{esc(para(1))}</p></div></article>' for i in range(3)) + '</section>'

def page(title, body, head="", lang="en", extra_body_before="", extra_body_after=SIDEBAR):
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{esc(title)} | Plot Notes</title>
<meta name="viewport" content="width=device-width"><link rel="stylesheet" href="/style.css">
<script src="/js/theme.js" defer></script>{head}</head>
<body>{NAV}{extra_body_before}<div id="page" class="site"><main id="main" class="site-main">{body}</main>{extra_body_after}</div>{FOOTER}</body></html>
"""

def share():
    return '<div class="share-buttons"><a href="https://facebook.example/share">Facebook</a> <a href="https://twitter.example/share">Twitter</a> <a href="mailto:?s=x">Email</a></div>'

def related():
    return '<div class="related-posts"><h3>You may also like</h3><ul>' + "".join(f'<li><a href="/r/{i}/">{esc(sentence(6))}</a></li>' for i in range(4)) + '</ul></div>'

pages = {}

def wp_classic():
    t = "Why we stopped digging"
    blocks, html = [], []
    for i in range(3):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    h = "What changed in the soil"; blocks.append(h); html.append(f"<h2>{h}</h2>")
    items = [sentence(8) for _ in range(4)]; blocks += items
    html.append("<ul>" + "".join(f"<li>{esc(x)}</li>" for x in items) + "</ul>")
    q = para(2); blocks.append(q); html.append(f"<blockquote><p>{esc(q)}</p></blockquote>")
    html.append('<figure class="wp-block-image"><img src="/img/bed.jpg" alt=""><figcaption>The bed in May. Photo: the author</figcaption></figure>')
    for i in range(3):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    body = f'<article class="post type-post hentry"><header class="entry-header"><h1 class="entry-title">{t}</h1><div class="entry-meta"><span class="byline">By <a rel="author" href="/author/ann/">Ann Gardener</a></span> <time class="entry-date published" datetime="2026-03-02T09:00:00Z">March 2, 2026</time></div></header><div class="entry-content">{"".join(html)}</div><footer class="entry-footer"><span class="tags-links">Tagged <a href="/t/soil/">soil</a>, <a href="/t/no-dig/">no-dig</a></span></footer>{share()}</article>{related()}{COMMENTS}'
    return t, page(t, body), blocks

def news_captions():
    t = "Troughs to be replaced after summer of leaks"
    blocks, html = [], []
    lead = para(1); blocks.append(lead); html.append(f'<p class="lead">{esc(lead)}</p>')
    for i in range(7):
        p = para(rnd.randint(1, 3)); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
        if i == 1:
            html.append(f'<figure><img src="/i/{i}.jpg"><figcaption>{esc(sentence(10))} (Image: GETTY)</figcaption></figure>')
        if i == 3:
            html.append(f'<p><strong>READ MORE: <a href="/news/other/">{esc(sentence(7))}</a></strong></p>')
        if i == 4:
            html.append('<div class="newsletter-signup"><h3>Get the latest news</h3><p>Sign up to our daily newsletter and never miss a story.</p><form><input type="email"><button>Subscribe</button></form></div>')
        if i == 5:
            html.append(f'<div class="image-credit"><img src="/i/x.jpg"><p>{esc(sentence(9))} Credit: Plot Agency</p></div>')
    body = f'<article class="story"><h1>{t}</h1><p class="dateline">PUBLISHED: 10:48, Tue, Mar 3, 2026 | UPDATED: 11:05, Tue, Mar 3, 2026</p><div class="author-byline">By JANE REPORTER</div><div class="story-body">{"".join(html)}</div>{share()}</article><div class="more-stories"><h2>More stories</h2>' + "".join(f'<article class="teaser"><h3><a href="/n/{i}">{esc(sentence(6))}</a></h3><p>{esc(sentence())}</p></article>' for i in range(4)) + '</div>'
    return t, page(t, body, extra_body_after=""), blocks

def code_post():
    t = "Reading a sitemap in constant memory"
    blocks, html = [], []
    for i in range(2):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    code = "func read(r io.Reader) error {\n\tdec := xml.NewDecoder(r)\n\tfor {\n\t\ttok, err := dec.Token()\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\t_ = tok\n\t}\n}"
    blocks.append(code); html.append(f"<pre><code>{esc(code)}</code></pre>")
    h = "Resuming after a cut"; blocks.append(h); html.append(f"<h2>{h}</h2>")
    for i in range(3):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    items = [sentence(7) for _ in range(3)]; blocks += items
    html.append("<ol>" + "".join(f"<li>{esc(x)}</li>" for x in items) + "</ol>")
    body = f'<article><h1>{t}</h1><p class="post-meta">Posted on <time datetime="2026-01-27">27 January 2026</time> by Rui</p>{"".join(html)}<p class="post-tags">Tags: go, sitemaps, memory</p></article>'
    return t, page(t, body), blocks

def blogger_br():
    t = "A week on the plot"
    blocks = [para() for _ in range(5)]
    inner = "<br><br>".join(esc(b) for b in blocks)
    body = f'<div class="post hentry"><h3 class="post-title entry-title">{t}</h3><div class="post-header"><div class="post-header-line-1"></div></div><div class="post-body entry-content">{inner}<div style="clear: both;"></div></div><div class="post-footer"><div class="post-footer-line post-footer-line-1"><span class="post-author vcard">Posted by <span class="fn">Ann</span></span> <span class="post-timestamp">at <a class="timestamp-link" href="/2026/03/week.html"><abbr class="published" title="2026-03-08T10:00:00Z">10:00</abbr></a></span> <span class="post-comment-link"><a href="#comments">2 comments</a></span></div><div class="post-share-buttons"><a href="/share?e">Email This</a> <a href="/share?b">BlogThis!</a> <a href="/share?t">Share to Twitter</a> <a href="/share?f">Share to Facebook</a></div><div class="post-footer-line post-footer-line-2"><span class="post-labels">Labels: <a href="/l/garden">garden</a>, <a href="/l/diary">diary</a></span></div></div></div>'
    return t, page(t, body), blocks

def builder_rows():
    t = "Our allotment society"
    blocks, cols = [], []
    for i in range(5):
        h = sentence(4)[:-1]; p = para(2)
        blocks += [h, p]
        cols.append(f'<div class="elementor-column elementor-col-50"><div class="elementor-widget-wrap"><div class="elementor-element elementor-widget elementor-widget-heading"><div class="elementor-widget-container"><h2 class="elementor-heading-title">{esc(h)}</h2></div></div><div class="elementor-element elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container"><p>{esc(p)}</p></div></div></div></div>')
        cols.append('<div class="elementor-column elementor-col-50"><div class="elementor-widget-wrap"><div class="elementor-element elementor-widget elementor-widget-image"><img src="/i/r.jpg"></div><div class="elementor-element elementor-widget elementor-widget-button"><a class="elementor-button" href="/join/"><span>Join us</span></a></div></div></div>')
    rows = "".join(f'<section class="elementor-section elementor-top-section"><div class="elementor-container">{cols[2*i]}{cols[2*i+1]}</div></section>' for i in range(5))
    body = f'<div data-elementor-type="wp-page" class="elementor elementor-12"><section class="elementor-section"><div class="elementor-container"><h1 class="elementor-heading-title">{t}</h1></div></section>{rows}</div>'
    return t, page(t, body, extra_body_after=""), blocks

def recipe():
    t = "Broad bean and mint salad"
    blocks, html = [], []
    for i in range(3):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    html.append('<div class="adsbygoogle"><p>Advertisement</p></div>')
    h = "Ingredients"; blocks.append(h); html.append(f"<h2>{h}</h2>")
    ings = ["500 g broad beans, podded", "a handful of mint leaves", "2 tablespoons olive oil", "juice of half a lemon", "salt and pepper"]
    blocks += ings; html.append("<ul class='ingredients'>" + "".join(f"<li>{esc(x)}</li>" for x in ings) + "</ul>")
    h = "Method"; blocks.append(h); html.append(f"<h2>{h}</h2>")
    steps = [sentence(12) for _ in range(4)]; blocks += steps
    html.append("<ol class='instructions'>" + "".join(f"<li>{esc(x)}</li>" for x in steps) + "</ol>")
    p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    body = f'<article class="recipe-post"><h1>{t}</h1><p><a class="jump-to-recipe" href="#recipe">Jump to Recipe</a> · <a href="#print">Print Recipe</a></p><div class="entry-content">{"".join(html)}</div>{share()}</article>{related()}'
    return t, page(t, body), blocks

def listing_first():
    t = "Loving the plot"
    blocks = [para() for _ in range(4)]
    first = "".join(f"<p>{esc(b)}</p>" for b in blocks)
    others = "".join(f'<article class="post hentry"><h2><a href="/o/{i}/">{esc(sentence(5))}</a></h2><p>{esc(para(2))}</p><a class="more-link" href="/o/{i}/">Continue reading</a></article>' for i in range(5))
    body = f'<div class="content"><article class="post hentry"><h1>{t}</h1>{first}</article>{others}</div>'
    return t, page(t, body), blocks

def tweets():
    t = "The poster everyone laughed at"
    blocks, html = [], []
    for i in range(4):
        p = para(2); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
        tw = sentence(12); who = f"— Plot Fan {i} (@plotfan{i}) March {i+1}, 2026"
        blocks += [tw, who]
        html.append(f'<div class="social-embed embed-twitter"><blockquote class="twitter-tweet"><p lang="en" dir="ltr">{esc(tw)}</p>{who.replace(f"March {i+1}, 2026", "")}<a href="https://twitter.example/plotfan{i}/status/{i}">March {i+1}, 2026</a></blockquote><script async src="https://platform.twitter.example/widgets.js"></script></div>')
    body = f'<article><h1>{t}</h1><div class="article-body">{"".join(html)}</div></article>'
    return t, page(t, body), blocks

def table_post():
    t = "Rainfall by month"
    blocks, html = [], []
    p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    rows = [("Month", "Rain (mm)", "Days"), ("January", "61", "12"), ("February", "44", "9"), ("March", "38", "10")]
    html.append("<table><tbody>" + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows) + "</tbody></table>")
    blocks += [" ".join(r) for r in rows]
    for i in range(2):
        p = para(); blocks.append(p); html.append(f"<p>{esc(p)}</p>")
    body = f'<article><h1>{t}</h1>{"".join(html)}</article>'
    return t, page(t, body), blocks

def short_post():
    t = "Gone to the plot"
    blocks = [para(2), para(1)]
    body = f'<article><h1>{t}</h1>' + "".join(f"<p>{esc(b)}</p>" for b in blocks) + f'</article>{related()}'
    return t, page(t, body), blocks

def german_hidden():
    t = "Der Kompost dampft"
    de = ["Der Ausschuss traf sich am Dienstagabend, um über die Wassertröge zu sprechen, die jeden Sommer undicht sind und die noch niemand reparieren wollte.",
          "Jeder hatte eine Meinung, und die meisten drehten sich darum, wer an der Reihe war; der Schriftführer notierte nur, dass die Entscheidung vertagt wurde.",
          "Am Ende bot das Café an der Ecke an, eine Pumpe zu leihen, und die Sache wurde bei einer Tasse Tee erledigt.",
          "Das Protokoll hängt am Samstag am Schwarzen Brett neben dem Tor, und wer Fragen hat, kann sie dort aufschreiben."]
    html = []
    for i, p in enumerate(de):
        html.append(f"<p>{p}</p>")
        if i == 1:
            html.append('<div aria-hidden="true" class="hover-card"><p>Max Mustermann Vorsitzender seit 2019 und Freund der Tomaten</p></div>')
            html.append('<div style="display: none"><p>Versteckter Text für Suchmaschinen, den niemand liest.</p></div>')
    body = f'<article><h1>{t}</h1><p class="byline">Von Carla Spaten</p>{"".join(html)}<p class="tags">Schlagwörter: Kompost, Garten</p></article>'
    return t, page(t, body, lang="de"), de

for name, fn in [("wp_classic", wp_classic), ("news_captions", news_captions), ("code_post", code_post),
                 ("blogger_br", blogger_br), ("builder_rows", builder_rows), ("recipe", recipe),
                 ("listing_first", listing_first), ("tweets", tweets), ("table_post", table_post),
                 ("short_post", short_post), ("german_hidden", german_hidden)]:
    title, html, blocks = fn()
    open(f"{name}.html", "w").write(html)
    open(f"{name}.txt", "w").write("\n\n".join(blocks) + "\n")

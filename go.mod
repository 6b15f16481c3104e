module corpus.blog/corpusbot

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/andybalholm/brotli v1.3.0
	github.com/mmcdole/gofeed v1.4.2
	github.com/temoto/robotstxt v1.1.2
	golang.org/x/net v0.63.0
	golang.org/x/text v0.44.0
)

require github.com/mmcdole/goxpp/v2 v2.0.0 // indirect

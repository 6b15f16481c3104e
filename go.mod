module corpus.blog/corpusbot

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/temoto/robotstxt v1.1.2
)

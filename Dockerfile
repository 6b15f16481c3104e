# corpusbot in a container: a static binary on distroless, running as a
# user that is not root, its SQLite database in the /data volume.
#
#   docker build -t corpusbot .
#   docker run -v corpusbot-data:/data corpusbot            # corpusbot run
#   docker run -p 8080:8080 -v corpusbot-data:/data corpusbot serve --addr 0.0.0.0:8080
#
# With PostgreSQL, set CORPUSBOT_DB to a postgres:// URL (deploy/compose.yaml).

FROM golang:1.26 AS build
WORKDIR /src
# The modules first, so that a change of source alone reuses this layer.
COPY go.mod go.sum ./
# go.mod replaces go-readability with the patched copy here.
COPY third_party ./third_party
RUN go mod download
COPY . .
# Static (the SQLite driver is pure Go), no build paths in the binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/corpusbot ./cmd/corpusbot \
    && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/corpusbot /usr/local/bin/corpusbot
# The volume's mount point belongs to the user the crawler runs as, so a
# fresh named volume does too (Docker copies the ownership on first use).
COPY --from=build --chown=65532:65532 /out/data /data
# distroless's "nonroot" user, by number so that a runtime can check it
# is not root without reading /etc/passwd.
USER 65532:65532
WORKDIR /data
ENV CORPUSBOT_DB=/data/corpusbot.db
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/corpusbot"]
CMD ["run"]

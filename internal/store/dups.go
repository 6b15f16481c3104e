package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/textsig"
)

// maxCandidates bounds the posts one text is compared with: the holders of
// its exact hash, and those sharing a MinHash band with it. A band shared
// by very many posts is boilerplate rather than a copy, and what is past the
// bound is left unread rather than slowing every write.
const maxCandidates = 200

// metaTags is m's tags as stored: a JSON list, never null.
func metaTags(m Meta) (string, error) {
	b, err := json.Marshal(nonNil(m.Tags))
	if err != nil {
		return "", fmt.Errorf("tags: %w", err)
	}
	return strings.ReplaceAll(string(b), "\x00", ""), nil
}

// fingerprintURL is fingerprint of the post at the URL key u.
func fingerprintURL(ctx context.Context, tx conn, u string) error {
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM posts WHERE url = $1`, u).Scan(&id); err != nil {
		return fmt.Errorf("fingerprint %s: %w", u, err)
	}
	return fingerprint(ctx, tx, id)
}

// fingerprint stores the fingerprint of post id's text (textsig: its exact
// hash, its MinHash and the MinHash's bands) in place of the one it had,
// and decides whether its text is another's: the earliest post (by first
// seen, then ID) on any site, indexed, that holds the same text or a near
// copy of it is its original (duplicate_of); the later holders for which
// this post is the earliest such become its duplicates. A post without
// text, or not indexed, is nobody's duplicate.
//
// Every read here goes through an index: the post by its key, the holders
// of the hash through post_sigs_hash, those sharing a band through
// post_bands' key, their fingerprints and records by their keys; at most
// maxCandidates of them, whatever the corpus's size.
func fingerprint(ctx context.Context, tx conn, id int64) error {
	var text, state string
	var seen int64
	if err := tx.QueryRowContext(ctx, `SELECT text, state, first_seen FROM posts WHERE id = $1`, id).Scan(&text, &state, &seen); err != nil {
		return fmt.Errorf("fingerprint %d: %w", id, err)
	}
	return fingerprintText(ctx, tx, id, text, state, seen)
}

// fingerprintText is fingerprint with the post's stored text, state and
// first seen given.
func fingerprintText(ctx context.Context, tx conn, id int64, text, state string, seen int64) error {
	sig := textsig.Sig{}
	if state == model.PostIndexed {
		sig = textsig.Of(text)
	}
	return fingerprintSig(ctx, tx, id, sig, seen, storedSig{original: -1, bands: true}) // nothing known of what is stored
}

// storedSig is what a caller knows of a post's stored fingerprint, so that
// fingerprintSig writes only what changes.
type storedSig struct {
	original int64 // its duplicate_of as stored now; -1: not known
	bands    bool  // it may have rows in post_bands
}

// fingerprintSig is fingerprint with the post's fingerprint (the zero Sig
// for a post not indexed) and first seen given, and what is stored of it
// now as far as known.
func fingerprintSig(ctx context.Context, tx conn, id int64, sig textsig.Sig, seen int64, stored storedSig) error {
	original := stored.original
	if stored.bands {
		if _, err := tx.ExecContext(ctx, `DELETE FROM post_bands WHERE post_id = $1`, id); err != nil {
			return fmt.Errorf("fingerprint %d: %w", id, err)
		}
	}
	if sig.Hash == "" {
		if _, err := tx.ExecContext(ctx, `DELETE FROM post_sigs WHERE post_id = $1`, id); err != nil {
			return fmt.Errorf("fingerprint %d: %w", id, err)
		}
		if original == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE posts SET duplicate_of = 0 WHERE id = $1 AND duplicate_of <> 0`, id)
		return err
	}
	minhash := ""
	if sig.Near {
		minhash = hex.EncodeToString(sig.MinHash.Bytes())
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO post_sigs(post_id, hash, minhash) VALUES ($1, $2, $3)
		ON CONFLICT(post_id) DO UPDATE SET hash = excluded.hash, minhash = excluded.minhash`, id, sig.Hash, minhash); err != nil {
		return fmt.Errorf("fingerprint %d: %w", id, err)
	}
	var bands [textsig.BandCount]int64
	if sig.Near {
		bands = sig.MinHash.Bands()
		if _, err := tx.ExecContext(ctx, `INSERT INTO post_bands(band, post_id) VALUES ($1, $9), ($2, $9), ($3, $9), ($4, $9), ($5, $9), ($6, $9), ($7, $9), ($8, $9)
			ON CONFLICT DO NOTHING`, bands[0], bands[1], bands[2], bands[3], bands[4], bands[5], bands[6], bands[7], id); err != nil {
			return fmt.Errorf("fingerprint %d: %w", id, err)
		}
	}
	holders, err := textHolders(ctx, tx, id, sig, bands)
	if err != nil {
		return fmt.Errorf("fingerprint %d: %w", id, err)
	}
	me := holder{id: id, seen: seen}
	var later []int64
	earliest := int64(0)
	for _, h := range holders {
		switch {
		case h.before(me) && earliest == 0:
			earliest = h.id
		case me.before(h):
			later = append(later, h.id)
		}
	}
	if earliest != original {
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET duplicate_of = $1 WHERE id = $2 AND duplicate_of <> $1`, earliest, id); err != nil {
			return fmt.Errorf("fingerprint %d: %w", id, err)
		}
	}
	// Each later holder is this post's duplicate, unless it already
	// points to a post earlier still (a copy of it that is not one of
	// this post's: nearness is not transitive), whether or not this post
	// is itself another's duplicate. So every post points to the earliest
	// holder of its text before it, whatever order the posts are
	// fingerprinted in, and fingerprinting them again changes nothing.
	for _, l := range later {
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET duplicate_of = $1 WHERE id = $2 AND duplicate_of <> $1
			AND (duplicate_of = 0 OR EXISTS (SELECT 1 FROM posts o WHERE o.id = posts.duplicate_of
				AND (o.first_seen > $3 OR (o.first_seen = $3 AND o.id > $1))))`, id, l, seen); err != nil {
			return fmt.Errorf("fingerprint %d: %w", id, err)
		}
	}
	return nil
}

// holder is an indexed post holding a text.
type holder struct {
	id, seen int64
}

func (h holder) before(o holder) bool {
	return h.seen < o.seen || (h.seen == o.seen && h.id < o.id)
}

// textHolders are the indexed posts other than id whose text is sig's or a
// near copy (textsig.Near), earliest first.
func textHolders(ctx context.Context, tx conn, id int64, sig textsig.Sig, bands [textsig.BandCount]int64) ([]holder, error) {
	var out []holder
	seen := map[int64]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT p.id, p.first_seen FROM post_sigs s JOIN posts p ON p.id = s.post_id
		WHERE s.hash = $1 AND s.post_id <> $2 AND p.state = `+sqlPostIndexed+` LIMIT $3`, sig.Hash, id, maxCandidates)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var h holder
		if err := rows.Scan(&h.id, &h.seen); err != nil {
			rows.Close()
			return nil, err
		}
		out, seen[h.id] = append(out, h), true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if sig.Near {
		// CROSS JOIN fixes SQLite's join order, the bands first: with no
		// ANALYZE statistics (the crawler never gathers them) its planner
		// otherwise walks every indexed post through posts_state_dated
		// and looks each one's bands up, a cost that grows with the
		// corpus (63% of the seed pass's CPU at 2,000 sources). PostgreSQL
		// plans a CROSS JOIN as any inner join.
		rows, err := tx.QueryContext(ctx, `SELECT p.id, p.first_seen, s.minhash FROM post_bands b
			CROSS JOIN post_sigs s CROSS JOIN posts p
			WHERE s.post_id = b.post_id AND p.id = b.post_id
			AND b.band IN ($1, $2, $3, $4, $5, $6, $7, $8) AND b.post_id <> $9 AND p.state = `+sqlPostIndexed+` LIMIT $10`,
			bands[0], bands[1], bands[2], bands[3], bands[4], bands[5], bands[6], bands[7], id, maxCandidates)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var h holder
			var mh string
			if err := rows.Scan(&h.id, &h.seen, &mh); err != nil {
				return nil, err
			}
			if seen[h.id] {
				continue
			}
			b, err := hex.DecodeString(mh)
			if err != nil {
				return nil, errors.New("a stored MinHash is not hex")
			}
			if m, ok := textsig.FromBytes(b); ok && textsig.Near(sig.MinHash, m) {
				out, seen[h.id] = append(out, h), true
			}
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b holder) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	return out, nil
}

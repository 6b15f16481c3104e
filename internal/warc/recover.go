package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Recovery is what Recover did to one file left under ".open".
type Recovery struct {
	// Path is where the file is now: its final name, or the ".open" name
	// of a file removed.
	Path string
	// Records is how many whole records it keeps.
	Records int
	// Cut is how many bytes were cut from its end (all of them when
	// Removed).
	Cut int64
	// Removed says it held no whole record and was removed.
	Removed bool
}

// Recover completes the ".warc.gz.open" files in dir that no live Writer
// holds: each is cut back to the end of its last whole record, a request
// record at its end without its response is cut too (a Writer writes the
// two together), and the file is synced and given its final name. A file
// without a single whole record is removed. A record is whole when its gzip
// member is complete (its checksum matches) and holds exactly one WARC
// record with as many content bytes as its Content-Length says; everything
// from the first record that is not whole to the end is cut.
//
// It returns what it did, and stops at the first file it cannot complete
// (one it cannot read, cut, sync or rename, or whose final name is taken).
func Recover(dir string) ([]Recovery, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	var done []Recovery
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".warc.gz"+openSuffix) {
			continue
		}
		r, ok, err := recoverFile(filepath.Join(dir, e.Name()))
		if ok {
			done = append(done, r)
		}
		if err != nil {
			return done, fmt.Errorf("warc: completing %s: %w", e.Name(), err)
		}
	}
	return done, nil
}

// recoverFile completes one file; false when it is not there anymore or a
// live Writer holds it.
func recoverFile(path string) (Recovery, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Recovery{}, false, nil // completed by its Writer or another Recover since listed
	}
	if err != nil {
		return Recovery{}, false, err
	}
	defer f.Close()
	locked, err := tryLock(f)
	if err != nil || !locked {
		return Recovery{}, false, err
	}
	// The Writer renames before it lets go of the lock: the file opened
	// may have its final name by now.
	opened, err := f.Stat()
	if err != nil {
		return Recovery{}, false, err
	}
	if now, err := os.Stat(path); err != nil || !os.SameFile(opened, now) {
		return Recovery{}, false, nil
	}
	whole, err := scanWhole(f)
	if err != nil {
		return Recovery{}, false, err
	}
	r := Recovery{Path: path, Records: whole.records, Cut: opened.Size() - whole.end}
	if whole.records == 0 {
		if err := os.Remove(path); err != nil {
			return Recovery{}, false, err
		}
		r.Removed = true
		return r, true, syncDir(filepath.Dir(path))
	}
	if r.Cut > 0 {
		if err := f.Truncate(whole.end); err != nil {
			return Recovery{}, false, err
		}
	}
	if err := f.Sync(); err != nil {
		return Recovery{}, false, err
	}
	r.Path = strings.TrimSuffix(path, openSuffix)
	if err := renameNoReplace(path, r.Path); err != nil {
		return Recovery{}, false, err
	}
	return r, true, syncDir(filepath.Dir(path))
}

// wholeRecords is where a .warc.gz file's whole records end and how many
// there are.
type wholeRecords struct {
	end     int64
	records int
}

// Limits of a record's header when scanning: far above what any writer
// puts there, low enough that a damaged file costs little memory.
const (
	maxHeaderLine  = 64 << 10
	maxHeaderBytes = 1 << 20
)

// scanWhole reads a .warc.gz file from its start, one gzip member (one
// record) at a time, to the first record that is not whole (see Recover)
// or the end. A request record at the end, without the response a Writer
// writes after it, does not count. Only an error reading r is returned; a
// damaged record ends the scan.
func scanWhole(r io.Reader) (wholeRecords, error) {
	in := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	var (
		whole    wholeRecords
		before   int64 // where the last whole record began
		lastType string
		zr       gzip.Reader
		content  = bufio.NewReaderSize(nil, maxHeaderLine)
	)
	for {
		start := in.n
		if err := zr.Reset(in); err != nil {
			break // the end of the file, or not a gzip member
		}
		zr.Multistream(false)
		content.Reset(&zr)
		warcType, ok := readRecord(content)
		if !ok {
			break
		}
		// Nothing after the record in its member, and the member's
		// checksum right: reading to its end checks it.
		if n, err := content.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			break
		}
		before, lastType = start, warcType
		whole.end = in.n
		whole.records++
	}
	if in.err != nil {
		return wholeRecords{}, in.err
	}
	if whole.records > 0 && strings.EqualFold(lastType, "request") {
		whole.end = before
		whole.records--
	}
	return whole, nil
}

// readRecord reads one WARC record from r: the version line, the header
// fields, the content of Content-Length bytes and the two CRLFs that end
// it. It returns the record's WARC-Type and whether the record was whole.
func readRecord(r *bufio.Reader) (warcType string, ok bool) {
	line, ok := readLine(r)
	if !ok || !bytes.HasPrefix(line, []byte("WARC/")) {
		return "", false
	}
	length := int64(-1)
	headerBytes := len(line)
	for {
		line, ok := readLine(r)
		if !ok {
			return "", false
		}
		headerBytes += len(line)
		if headerBytes > maxHeaderBytes {
			return "", false
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue // a continuation line, or a damaged one the length will judge
		}
		value = bytes.TrimSpace(value)
		switch {
		case strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return "", false
			}
			length = n
		case strings.EqualFold(string(bytes.TrimSpace(name)), "WARC-Type"):
			warcType = string(value)
		}
	}
	if length < 0 {
		return "", false
	}
	if n, err := io.CopyN(io.Discard, r, length); n != length || err != nil {
		return "", false
	}
	var end [4]byte
	if _, err := io.ReadFull(r, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		return "", false
	}
	return warcType, true
}

// readLine reads one line, its newline included; false when the line does
// not end or is longer than maxHeaderLine.
func readLine(r *bufio.Reader) ([]byte, bool) {
	line, err := r.ReadSlice('\n')
	return line, err == nil
}

// countingReader counts the bytes read through it. It is an io.ByteReader,
// so that gzip reads exactly the bytes of each member from it and no more:
// n is then where the member read last ends. err keeps the first error of
// the file itself, as opposed to the end of it.
type countingReader struct {
	r   *bufio.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.keep(err)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	c.keep(err)
	return b, err
}

func (c *countingReader) keep(err error) {
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
}

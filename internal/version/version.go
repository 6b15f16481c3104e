// Package version says which build of corpusbot is running, from what the
// Go toolchain stamps into the binary (module version, VCS revision).
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Name is the program's name as the version line gives it.
const Name = "corpusbot"

// Devel is the version of a build that has none: go run, go build in a
// work tree (before Go stamps VCS pseudo-versions), tests.
const Devel = "(devel)"

// Info describes the running binary.
type Info struct {
	Version   string    // module version, or Devel
	Revision  string    // VCS commit, "" if unknown
	Time      time.Time // VCS commit time, zero if unknown
	Modified  bool      // the work tree had uncommitted changes
	GoVersion string    // the toolchain that built it
}

// Get reads the running binary's build information.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	return fromBuildInfo(bi, ok)
}

func fromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	info := Info{Version: Devel, GoVersion: runtime.Version()}
	if !ok || bi == nil {
		return info
	}
	if v := bi.Main.Version; v != "" {
		info.Version = v
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				info.Time = t.UTC()
			}
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// shortRevision is as many hex digits of a commit as Go's pseudo-versions
// keep: enough to be unique in any repository of this size.
const shortRevision = 12

// Build names the source the binary was built from, for metadata that
// has a field for it (a Parquet file's created_by): the short revision,
// with "-modified" when the work tree had changes; "" when unknown.
func (i Info) Build() string {
	rev := i.Revision
	if len(rev) > shortRevision {
		rev = rev[:shortRevision]
	}
	if rev != "" && i.Modified {
		rev += "-modified"
	}
	return rev
}

// String is the one-line version, e.g.
// "corpusbot v1.2.0 (rev 0123456789ab, 2026-12-01T10:00:00Z, modified) go1.26.0";
// the parenthesis is left out when the build has no VCS information.
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(Name + " ")
	if i.Version == "" {
		b.WriteString(Devel)
	} else {
		b.WriteString(i.Version)
	}
	var vcs []string
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > shortRevision {
			rev = rev[:shortRevision]
		}
		vcs = append(vcs, "rev "+rev)
	}
	if !i.Time.IsZero() {
		vcs = append(vcs, i.Time.UTC().Format(time.RFC3339))
	}
	if i.Modified {
		vcs = append(vcs, "modified")
	}
	if len(vcs) > 0 {
		b.WriteString(" (" + strings.Join(vcs, ", ") + ")")
	}
	if i.GoVersion != "" {
		b.WriteString(" " + i.GoVersion)
	}
	return b.String()
}

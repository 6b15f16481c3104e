package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestFromBuildInfo(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "corpus.blog/corpusbot", Version: "v0.0.0-20261201100000-0123456789ab"},
		Settings: []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Info
		line string
	}{
		{
			"stamped", stamped, true,
			Info{Version: "v0.0.0-20261201100000-0123456789ab", Revision: "0123456789abcdef0123456789abcdef01234567",
				Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Modified: true, GoVersion: "go1.26.0"},
			"corpusbot v0.0.0-20261201100000-0123456789ab (rev 0123456789ab, 2026-12-01T10:00:00Z, modified) go1.26.0",
		},
		{
			"clean tree, release tag",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "abc1234"}, {Key: "vcs.modified", Value: "false"},
			}}, true,
			Info{Version: "v1.2.0", Revision: "abc1234", GoVersion: "go1.26.1"},
			"corpusbot v1.2.0 (rev abc1234) go1.26.1",
		},
		{
			"go run: devel, no VCS",
			&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, true,
			Info{Version: "(devel)", GoVersion: "go1.26.0"},
			"corpusbot (devel) go1.26.0",
		},
		{
			"bad vcs.time is left out",
			&debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "yesterday"}}}, true,
			Info{Version: "(devel)", GoVersion: "go1.26.0"},
			"corpusbot (devel) go1.26.0",
		},
		{
			"no build info", nil, false,
			Info{Version: "(devel)", GoVersion: runtime.Version()},
			"corpusbot (devel) " + runtime.Version(),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fromBuildInfo(c.bi, c.ok)
			if got != c.want {
				t.Errorf("fromBuildInfo = %+v, want %+v", got, c.want)
			}
			if s := got.String(); s != c.line {
				t.Errorf("String() = %q, want %q", s, c.line)
			}
		})
	}
}

func TestZeroInfoString(t *testing.T) {
	if s := (Info{}).String(); s != "corpusbot (devel)" {
		t.Errorf("zero Info = %q", s)
	}
}

// TestGetInTestBinary: a test binary has build info with the running Go's
// version.
func TestGetInTestBinary(t *testing.T) {
	i := Get()
	if i.GoVersion != runtime.Version() {
		t.Errorf("GoVersion = %q, want %q", i.GoVersion, runtime.Version())
	}
	if i.Version == "" || !strings.HasPrefix(i.String(), "corpusbot ") {
		t.Errorf("Get() = %+v, %q", i, i.String())
	}
}

// TestStampedBinary builds a program around this package's source in a
// fresh git repository (a work tree of git worktree's kind is not stamped by
// the go command) and checks that the revision, commit time and modified
// flag Go stamps are the ones read back.
func TestStampedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	source, err := os.ReadFile("version.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GOFLAGS=-buildvcs=true", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write("go.mod", "module example.com/stamp\n\ngo 1.26.0\n")
	write("version/version.go", string(source))
	write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/stamp/version\"\n)\n\n"+
		"func main() { fmt.Print(version.Get().String()) }\n")
	run(git, "init", "-q")
	run(git, "add", ".")
	run(git, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
	rev := run(git, "rev-parse", "HEAD")
	when := run(git, "log", "-1", "--format=%cI")
	commitTime, err := time.Parse(time.RFC3339, when)
	if err != nil {
		t.Fatal(err)
	}
	// The go command that runs this test (go test puts its GOROOT's bin
	// first on PATH), as GOROOT names it.
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command:", err)
	}
	goTool := filepath.Join(strings.TrimSpace(string(goroot)), "bin", "go")

	run(goTool, "build", "-o", "clean")
	want := "(rev " + rev[:shortRevision] + ", " + commitTime.UTC().Format(time.RFC3339) + ") " + runtime.Version()
	if line := run(filepath.Join(dir, "clean")); !strings.HasPrefix(line, "corpusbot ") || !strings.HasSuffix(line, want) {
		t.Errorf("clean build says %q, want it to end %q", line, want)
	}

	write("main.go", strings.Replace(string(must(os.ReadFile(filepath.Join(dir, "main.go")))), "func main", "// changed\nfunc main", 1))
	run(goTool, "build", "-o", "dirty")
	if line := run(filepath.Join(dir, "dirty")); !strings.Contains(line, ", modified) ") {
		t.Errorf("build of a changed tree says %q, want modified", line)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

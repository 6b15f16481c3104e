// Package deploy_test checks the packaging files (Dockerfile, the systemd
// unit, the compose file) for what a review would: the sandbox is there,
// the container does not run as root, and every CORPUSBOT_* setting they
// name is one the crawler reads.
package deploy_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"go.yaml.in/yaml/v3"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// --- compose.yaml ---

type service struct {
	Image       string            `yaml:"image"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Deploy struct {
		Replicas int `yaml:"replicas"`
	} `yaml:"deploy"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Volumes []string `yaml:"volumes"`
}

type compose struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

func TestCompose(t *testing.T) {
	var c compose
	if err := yaml.Unmarshal([]byte(read(t, "compose.yaml")), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	pg, ok := c.Services["postgres"]
	if !ok {
		t.Fatal("no postgres service")
	}
	if len(pg.Healthcheck.Test) == 0 || !strings.Contains(strings.Join(pg.Healthcheck.Test, " "), "pg_isready") {
		t.Errorf("postgres healthcheck = %v, want pg_isready", pg.Healthcheck.Test)
	}
	if len(pg.Volumes) == 0 {
		t.Error("postgres keeps its data in no volume")
	} else if vol, _, _ := strings.Cut(pg.Volumes[0], ":"); c.Volumes == nil || !hasKey(c.Volumes, vol) {
		t.Errorf("postgres volume %q is not declared under volumes", vol)
	}

	for name, want := range map[string]struct {
		command  string
		replicas int
	}{"worker": {"run", 3}, "serve": {"serve", 0}} {
		s, ok := c.Services[name]
		if !ok {
			t.Errorf("no %s service", name)
			continue
		}
		if len(s.Command) == 0 || s.Command[0] != want.command {
			t.Errorf("%s runs %v, want corpusbot %s", name, s.Command, want.command)
		}
		if s.Deploy.Replicas != want.replicas {
			t.Errorf("%s has %d replicas, want %d", name, s.Deploy.Replicas, want.replicas)
		}
		if db := s.Environment["CORPUSBOT_DB"]; !strings.HasPrefix(db, "postgres://") || !strings.Contains(db, "@postgres:") {
			t.Errorf("%s CORPUSBOT_DB = %q, want a postgres:// URL of the postgres service", name, db)
		}
		if s.DependsOn["postgres"].Condition != "service_healthy" {
			t.Errorf("%s does not wait for postgres to be healthy", name)
		}
	}
	if serve := c.Services["serve"]; !slices.Contains(serve.Command, "--addr") {
		t.Errorf("serve %v keeps its default address, loopback, unreachable from outside the container", serve.Command)
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// --- corpusbot.service ---

// unitKeys reads a systemd unit: section -> key -> values (a key may be
// given more than once).
func unitKeys(t *testing.T, text string) map[string]map[string][]string {
	t.Helper()
	out := map[string]map[string][]string{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			out[section] = map[string][]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Errorf("unit line %d %q: not key=value in a section", n, line)
				continue
			}
			out[section][strings.TrimSpace(key)] = append(out[section][strings.TrimSpace(key)], strings.TrimSpace(value))
		}
	}
	return out
}

func TestSystemdUnit(t *testing.T) {
	unit := unitKeys(t, read(t, "corpusbot.service"))
	svc := unit["Service"]
	if svc == nil {
		t.Fatal("no [Service] section")
	}
	for key, want := range map[string]string{
		"NoNewPrivileges":         "yes",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"DynamicUser":             "yes",
		"StateDirectory":          "corpusbot",
		"ReadWritePaths":          "/var/lib/corpusbot",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"CapabilityBoundingSet":   "",
		"MemoryDenyWriteExecute":  "yes",
		"Restart":                 "on-failure",
		"KillSignal":              "SIGTERM",
		"SystemCallArchitectures": "native",
		"RestrictSUIDSGID":        "yes",
		"ProtectKernelTunables":   "yes",
		"ProtectControlGroups":    "yes",
		"LockPersonality":         "yes",
		"RestrictNamespaces":      "yes",
		"PrivateDevices":          "yes",
	} {
		values, ok := svc[key]
		if !ok {
			t.Errorf("[Service] has no %s", key)
			continue
		}
		if !slices.Contains(values, want) {
			t.Errorf("%s = %q, want %q", key, values, want)
		}
	}
	if !slices.Contains(svc["SystemCallFilter"], "@system-service") {
		t.Errorf("SystemCallFilter = %q, want @system-service", svc["SystemCallFilter"])
	}
	exec := svc["ExecStart"]
	if len(exec) != 1 || !strings.HasPrefix(exec[0], "/") || filepath.Base(strings.Fields(exec[0])[0]) != "corpusbot" ||
		!slices.Contains(strings.Fields(exec[0]), "run") {
		t.Errorf("ExecStart = %q, want an absolute path to corpusbot, running run", exec)
	}
	if _, ok := svc["User"]; ok && slices.Contains(svc["User"], "root") {
		t.Error("the service runs as root")
	}
	if len(unit["Install"]["WantedBy"]) == 0 {
		t.Error("no WantedBy: systemctl enable would do nothing")
	}
}

// TestSystemdAnalyze asks systemd itself, where it is installed, how
// exposed the service is (0 to 10, as systemd-analyze security prints it)
// and whether the unit has errors other than the binary not being installed.
func TestSystemdAnalyze(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	// --threshold is in tenths of the printed level: at most 1.5.
	out, err := exec.Command(tool, "security", "--offline=true", "--no-pager", "--threshold=15", "corpusbot.service").CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security: %v; the service is more exposed than 1.5:\n%s", err, lastLines(string(out), 3))
	}
	out, _ = exec.Command(tool, "verify", "corpusbot.service").CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" && !strings.Contains(line, "/usr/local/bin/corpusbot is not executable") {
			t.Errorf("systemd-analyze verify: %s", line)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// --- Dockerfile ---

// instructions are the Dockerfile's instructions, one per logical line
// (continuations joined), comments dropped.
func instructions(text string) []string {
	var lines []string
	var cur strings.Builder
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	return lines
}

// finalStage is the instructions from the last FROM on: the image shipped.
func finalStage(lines []string) []string {
	last := 0
	for i, l := range lines {
		if strings.HasPrefix(strings.ToUpper(l), "FROM ") {
			last = i
		}
	}
	return lines[last:]
}

func instruction(lines []string, name string) []string {
	var out []string
	for _, l := range lines {
		word, rest, _ := strings.Cut(l, " ")
		if strings.EqualFold(word, name) {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

func TestDockerfile(t *testing.T) {
	all := instructions(read(t, "../Dockerfile"))
	final := finalStage(all)
	users := instruction(final, "USER")
	if len(users) == 0 {
		t.Error("the final stage sets no USER: it would run as root")
	}
	for _, u := range users {
		name, _, _ := strings.Cut(u, ":")
		if name == "root" || name == "0" || name == "" {
			t.Errorf("USER %q is root", u)
		}
	}
	if vols := instruction(final, "VOLUME"); len(vols) == 0 || !strings.Contains(vols[0], "/data") {
		t.Errorf("VOLUME = %q, want /data", vols)
	}
	if env := instruction(final, "ENV"); !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "CORPUSBOT_DB=/data/") }) {
		t.Errorf("ENV = %q, want CORPUSBOT_DB in /data", env)
	}
	if ep := instruction(final, "ENTRYPOINT"); len(ep) != 1 || !strings.Contains(ep[0], "corpusbot\"") {
		t.Errorf("ENTRYPOINT = %q, want corpusbot", ep)
	}
	if cmd := instruction(final, "CMD"); len(cmd) != 1 || cmd[0] != `["run"]` {
		t.Errorf("CMD = %q, want [\"run\"]", cmd)
	}
	builds := instruction(all, "RUN")
	if !slices.ContainsFunc(builds, func(r string) bool {
		return strings.Contains(r, "CGO_ENABLED=0") && strings.Contains(r, "-trimpath") && strings.Contains(r, "go build")
	}) {
		t.Errorf("no RUN builds with CGO_ENABLED=0 and -trimpath: %q", builds)
	}
}

// --- settings names ---

var settingName = regexp.MustCompile(`\bCORPUSBOT_[A-Z0-9_]+`)

// unknownSettings lists the CORPUSBOT_* names in text that are no setting.
func unknownSettings(text string, known map[string]bool) []string {
	var out []string
	for _, name := range settingName.FindAllString(text, -1) {
		if !known[name] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func knownSettings() map[string]bool {
	known := map[string]bool{}
	for _, e := range config.Defaults().Entries() {
		known[e.Env] = true
	}
	return known
}

func TestSettingNamesAreReal(t *testing.T) {
	known := knownSettings()
	if !known["CORPUSBOT_DB"] || len(known) < 10 {
		t.Fatalf("settings table read as %v", known)
	}
	used := 0
	for _, path := range []string{"../Dockerfile", "corpusbot.service", "compose.yaml"} {
		text := read(t, path)
		used += len(settingName.FindAllString(text, -1))
		if bad := unknownSettings(text, known); len(bad) > 0 {
			t.Errorf("%s names settings corpusbot does not read: %v", path, bad)
		}
	}
	if used == 0 {
		t.Error("no CORPUSBOT_ setting found in the files: the check checked nothing")
	}
	// The check itself catches a misspelt name.
	if bad := unknownSettings("ENV CORPUSBOT_DB=/x CORPUSBOT_DATABASE=/y", known); !slices.Equal(bad, []string{"CORPUSBOT_DATABASE"}) {
		t.Errorf("unknownSettings of a misspelling = %v", bad)
	}
}

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeNotRun are the commands of the README and the docs pages that are not runs of ratebench
// but the development tools around it: the test suite (this test is part
// of it), the race detector's run of it, the benchmarks, the fuzzers and
// the rewrite of the golden files; and the replays through every
// product's real software (make live, ratebench live PRODUCT) and the check
// of gubernator's module, which need the npm packages a fresh clone has not
// installed and minutes each: CI runs them, and the live packages' tests
// replay through each product. Each is named by the start of its line.
var readmeNotRun = []string{"make test", "make race", "make bench", "make vet", "make fuzz", "go test",
	"make live", "make check-gubernator", "bin/ratebench live haproxy", "bin/ratebench live flask-limiter:strategy=moving"}

// readmeUserFiles are the files the README's commands take as the user's
// own, which a clone does not have: the test writes them into the clone
// (excluded from git status there, as a user's file would be by its own
// choice).
var readmeUserFiles = map[string]func(t *testing.T) []byte{
	"access.log.gz": func(t *testing.T) []byte {
		var log bytes.Buffer
		start := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		for i := range 300 {
			at := start.Add(time.Duration(i) * 700 * time.Millisecond)
			fmt.Fprintf(&log, "198.51.100.%d - - [%s] \"GET /p%d HTTP/1.1\" 200 512 \"-\" \"curl/8\"\n",
				i%7, at.Format("02/Jan/2006:15:04:05 -0700"), i%5)
		}
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write(log.Bytes())
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return gz.Bytes()
	},
}

// docsPages returns the pages whose shell commands the README test runs:
// the README, then every page of docs/, in the order of their names.
func docsPages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"README.md"}
	for _, d := range docs {
		pages = append(pages, filepath.Join("docs", filepath.Base(d)))
	}
	sort.Strings(pages[1:])
	return pages
}

// pageCommand is one line of a page's sh blocks.
type pageCommand struct{ page, line string }

// Every shell command of the README and of the reference pages in docs/,
// run in order (the README's first, whose make compare builds the binary
// the others use) on a fresh clone with small sizes, succeeds and leaves
// git status clean: no page shows a command that does not run, a user's
// runs never write where git sees them, and never over the committed
// reference results (so make report-check, which fails on any change in
// results/, passes after them).
func TestREADMECommandsLeaveTheCloneClean(t *testing.T) {
	for _, tool := range []string{"git", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the README's commands: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	clone := freshClone(t, root)
	var cmds []pageCommand
	readmeCmds := 0
	for _, page := range docsPages(t, clone) {
		text, err := os.ReadFile(filepath.Join(clone, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range readmeCommands(string(text)) {
			cmds = append(cmds, pageCommand{page, c})
			if page == "README.md" {
				readmeCmds++
			}
		}
	}
	makefile, err := os.ReadFile(filepath.Join(clone, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var exclude strings.Builder
	for name, content := range readmeUserFiles {
		if err := os.WriteFile(filepath.Join(clone, name), content(t), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&exclude, "/%s\n", name)
	}
	if err := os.WriteFile(filepath.Join(clone, ".git", "info", "exclude"), []byte(exclude.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The make targets' sizes, made small on the command line (which
	// overrides the Makefile); the samples make traces writes keep their
	// sizes, and so their bytes.
	makeVars := []string{
		"DEFAULT_GEN=" + smallSizes(makeVar(t, makefile, "DEFAULT_GEN")),
		"REDIS_GEN=" + smallSizes(makeVar(t, makefile, "REDIS_GEN")),
		"TRACE_N=2000",
	}
	if readmeCmds < 10 || len(cmds) < 30 {
		t.Fatalf("found %d commands in the README's sh blocks, %d with the docs pages': %q", readmeCmds, len(cmds), cmds)
	}
	// The commands run as a user's shell would run them: not under the
	// make that may run this test (whose variables would pass on to the
	// README's make), and with the clone's commit, new at every run, not
	// stamped into the binary (which would make Go link it anew at every
	// make).
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "MAKEFLAGS" && name != "MFLAGS" && name != "MAKELEVEL" && name != "GOFLAGS" {
			env = append(env, kv)
		}
	}
	env = append(env, "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -buildvcs=false"))
	ran := 0
	for _, pc := range cmds {
		c := pc.line
		if notRun(c) {
			continue
		}
		line := smallSizes(c)
		if strings.HasPrefix(line, "make ") {
			line += " " + shellQuote(makeVars)
		}
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir = clone
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: command %q (run as %q) failed: %v\n%s", pc.page, c, line, err, out)
		}
		ran++
		t.Logf("%s: %s: %v", pc.page, line, time.Since(began).Round(time.Millisecond))
		if st := gitStatus(t, clone); st != "" {
			t.Fatalf("after %s's command %q (run as %q), git status is not clean:\n%s", pc.page, c, line, st)
		}
	}
	if ran < 25 {
		t.Errorf("ran only %d of the README's and the docs pages' commands", ran)
	}
}

// freshClone makes a repository in a temporary folder holding the files of
// root's working tree that git would commit (tracked or not ignored), as
// one commit: a clone of root as it will be committed. The folder is the
// same at every run for the same root (and locked while a run uses it), so
// that the build of bin/ratebench in it finds its packages in Go's build
// cache.
func freshClone(t *testing.T, root string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(root))
	base := filepath.Join(os.TempDir(), "ratebench-readme-"+hex.EncodeToString(sum[:6]))
	lock, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(base, "ratebench")
	t.Cleanup(func() {
		os.RemoveAll(base)
		lock.Close()
	})
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree
		}
		dst := filepath.Join(clone, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=ratebench", "-c", "user.email=ratebench@example.invalid", "commit", "-q", "--no-gpg-sign", "-m", "clone"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = clone
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	return clone
}

func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	return string(out)
}

// readmeCommands returns the lines of the README's ```sh blocks, each
// without its trailing comment, in order.
func readmeCommands(readme string) []string {
	var cmds []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in:
			if c := strings.TrimSpace(stripComment(line)); c != "" {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// stripComment cuts a shell line at a # that starts a comment: outside
// quotes, at the start or after a blank.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

func notRun(cmd string) bool {
	for _, p := range readmeNotRun {
		if cmd == p || strings.HasPrefix(cmd, p+" ") {
			return true
		}
	}
	return false
}

var (
	requestsFlag  = regexp.MustCompile(`-requests [0-9][0-9_e]*`)
	requestsParam = regexp.MustCompile(`requests=[0-9][0-9_e]*`)
	keysFlag      = regexp.MustCompile(`-keys [0-9]+`)
)

// smallSizes makes a command's or a generator's request count small: 2000
// requests (and at most 100 keys for -keys), wherever a flag or a
// parameter says how many.
func smallSizes(s string) string {
	s = requestsFlag.ReplaceAllString(s, "-requests 2000")
	s = requestsParam.ReplaceAllString(s, "requests=2000")
	return keysFlag.ReplaceAllStringFunc(s, func(k string) string {
		var n int
		fmt.Sscanf(k, "-keys %d", &n)
		return fmt.Sprintf("-keys %d", min(n, 100))
	})
}

// makeVar returns the value the Makefile gives name (NAME := or ?= value).
func makeVar(t *testing.T, makefile []byte, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*[:?]?=\s*(.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return strings.TrimSpace(string(m[1]))
}

// shellQuote quotes each word for sh.
func shellQuote(words []string) string {
	var q []string
	for _, w := range words {
		q = append(q, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}

// Every reference page in docs/ is linked from the README and listed by
// ratebench help, and every page help lists exists: the README stays short
// because the reference is one link away, from the page or the terminal.
func TestDocsPagesLinkedFromREADMEAndHelp(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var help bytes.Buffer
	if err := run(&bytes.Buffer{}, &help, []string{"help"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help.String(), "Documentation") {
		t.Fatalf("ratebench help lists no documentation:\n%s", help.String())
	}
	pages := docsPages(t, root)[1:]
	if len(pages) < 8 {
		t.Fatalf("docs/ holds %d pages: %q", len(pages), pages)
	}
	for _, p := range pages {
		link := "](" + filepath.ToSlash(p) + ")"
		if !strings.Contains(string(readme), link) {
			t.Errorf("README.md does not link %s", p)
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(filepath.ToSlash(p)) + ` `).MatchString(help.String()) {
			t.Errorf("ratebench help does not list %s", p)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^  (docs/\S+\.md) `).FindAllStringSubmatch(help.String(), -1) {
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("ratebench help lists %s: %v", m[1], err)
		}
	}
}

// The README starts with the user's log: within its first 60 lines it
// shows the inspect and the compare of a committed sample, and what the
// compare prints, and it stays short (the reference is in docs/).
func TestREADMEStartsWithTheUsersLog(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	if len(lines) > 220 {
		t.Errorf("README.md has %d lines; the reference belongs in docs/", len(lines))
	}
	head := strings.Join(lines[:min(60, len(lines))], "\n")
	for _, want := range []string{"bin/ratebench inspect traces/samples/", "bin/ratebench compare traces/samples/", "Rule 10/1m, count accepted, independent mode:", "make compare", "make test"} {
		if !strings.Contains(head, want) {
			t.Errorf("the README's first 60 lines lack %q", want)
		}
	}
}

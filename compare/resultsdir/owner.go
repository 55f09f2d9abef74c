package resultsdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"ratebench/summary"
	"ratebench/traces"
)

// forceFix is what every refusal to replace another run's results says.
const forceFix = "use -force to overwrite them, or -o to write elsewhere"

// GenPrefix starts the path a summary records for a generated trace:
// gen:SCENARIO.
const GenPrefix = "gen:"

// CheckTrace refuses to replace the results of another trace in dir
// unless force is set. A trace is the same if it is the same generator
// spec, or a file of the same content (by fingerprint), whatever the path
// it was given by; standard input, or a pipe, is never known to be the
// same. A summary written before fingerprints is taken by its path. A
// search's summary.json is refused too, and so is one that cannot be read
// or does not validate (a hand-edited summary is no proof of whose folder
// it is).
func CheckTrace(dir string, trace summary.TraceInfo, force bool) error {
	if force {
		return nil
	}
	if kind, _ := KindOf(dir); kind == KindSearch {
		return CheckKind(dir, KindCompare, false)
	}
	path := filepath.Join(dir, SummaryFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	old, err := summary.ReadSummaryFile(path)
	if err != nil {
		return fmt.Errorf("%s holds a summary that cannot be read (%v): %s", dir, err, forceFix)
	}
	was := old.Trace
	switch {
	case was.Path == "-":
		return fmt.Errorf("%s holds the results of a trace read from standard input, which cannot be told the same; %s", dir, forceFix)
	case trace.Path == "-":
		return fmt.Errorf("%s holds the results of another trace (%q), and standard input cannot be told the same; %s", dir, was.Path, forceFix)
	case trace.Fingerprint == "" && !strings.HasPrefix(trace.Path, GenPrefix):
		return fmt.Errorf("%s holds the results of another trace (%q), and %s is not a regular file that can be told the same; %s", dir, was.Path, trace.Path, forceFix)
	case was.Fingerprint == "":
		if was.Path == trace.Path {
			return nil
		}
	case was.Fingerprint == trace.Fingerprint:
		return nil
	case was.Path == trace.Path:
		return fmt.Errorf("%s holds the results of %q as it was before: its content has changed since; %s", dir, was.Path, forceFix)
	}
	return fmt.Errorf("%s holds the results of another trace (%q); %s", dir, was.Path, forceFix)
}

// Kind is what wrote a results folder's summary.json.
type Kind string

const (
	KindNone    Kind = ""        // no summary.json
	KindCompare Kind = "compare" // a compare's or a merge's (summary.Summary)
	KindSearch  Kind = "search"  // a Cloudflare search's (summary.CloudflareSearch)
	KindOther   Kind = "other"   // anything else, or a file that is not JSON
)

// KindOf tells what wrote dir's summary.json, by the fields it holds: a
// compare's has runs, a search's points.
func KindOf(dir string) (Kind, error) {
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return KindNone, nil
	}
	if err != nil {
		return KindOther, err
	}
	var runs, points bool
	if !json.Valid(data) || summary.Members(data, func(k, _ []byte) {
		var name string
		if json.Unmarshal(k, &name) == nil {
			runs, points = runs || name == "runs", points || name == "points"
		}
	}) != nil {
		return KindOther, nil
	}
	switch {
	case runs && !points:
		return KindCompare, nil
	case points && !runs:
		return KindSearch, nil
	}
	return KindOther, nil
}

// kindText names the run that writes a kind of summary, for messages.
var kindText = map[Kind]string{
	KindCompare: "a compare (or merge)",
	KindSearch:  "a Cloudflare search",
	KindOther:   "another program",
}

// CheckKind refuses, unless force is set, to write a run of kind want
// into dir when dir's summary.json was written by a run of another kind
// (a search over a compare's results would leave the compare's report and
// plots beside the search's summary).
func CheckKind(dir string, want Kind, force bool) error {
	if force {
		return nil
	}
	got, err := KindOf(dir)
	if err != nil {
		return err
	}
	if got == KindNone || got == want {
		return nil
	}
	return fmt.Errorf("%s holds the results of another run: its %s is %s's, not %s's; %s",
		dir, SummaryFile, kindText[got], kindText[want], forceFix)
}

// Fingerprint returns the fingerprint of the trace file at path (see
// summary.TraceInfo.Fingerprint): a SHA-256 of its size, its first 64 KiB
// and its last 64 KiB; or "" if it is not a regular file (a pipe, a
// device, standard input) or cannot be read. A dataset folder's is the
// SHA-256 of its manifest's fingerprint and each part's, in order. What
// is not a regular file is never opened: opening a named pipe again, once
// its writer is done, waits for another.
func Fingerprint(path string) string {
	if path == "-" {
		return ""
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return datasetFingerprint(path)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() { // replaced since the Stat
		return ""
	}
	const part = 64 << 10
	size := fi.Size()
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", size)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, min(size, part))); err != nil {
		return ""
	}
	if size > part {
		tail := max(part, size-part)
		if _, err := io.Copy(h, io.NewSectionReader(f, tail, size-tail)); err != nil {
			return ""
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// datasetFingerprint returns the fingerprint of the dataset in dir, ""
// if it is none or cannot be read.
func datasetFingerprint(dir string) string {
	m, err := traces.ReadManifest(dir)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintln(h, Fingerprint(filepath.Join(dir, traces.DatasetFile)))
	for _, p := range m.Parts {
		fp := Fingerprint(filepath.Join(dir, p.File))
		if fp == "" {
			return ""
		}
		fmt.Fprintln(h, fp)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

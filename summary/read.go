package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MaxSummaryBytes bounds what ReadSummary reads: far above any summary a
// replay writes (a few megabytes for a large sweep), so that a wrong file
// given as a summary is refused rather than read whole.
const MaxSummaryBytes = 1 << 30

// ReadSummary reads a summary.json: one JSON object in one of Schemas,
// with its trace, config and runs, that Validate accepts. Its errors name
// the field at fault by its path ("runs[3].over: -1 is negative").
func ReadSummary(r io.Reader) (*Summary, error) {
	s, err := readSummary(r)
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	return s, nil
}

// ReadSummaryFile reads the summary.json at path as ReadSummary does. It
// refuses a path that is not a regular file (a folder, a FIFO, a device)
// before opening it, since opening a FIFO for reading waits for a writer
// that may never come; its errors begin with the path.
func ReadSummaryFile(path string) (*Summary, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s), not a summary.json", path, FileKind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := readSummary(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// FileKind names the kind of file of a mode that is not a regular file
// ("a named pipe"), for an error refusing it.
func FileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// readSummary decodes, checks the schema and the sections, and validates.
func readSummary(r io.Reader) (*Summary, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSummaryBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSummaryBytes {
		return nil, fmt.Errorf("more than %d bytes: not a summary", MaxSummaryBytes)
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if !slices.Contains(Schemas, s.Schema) {
		return nil, fmt.Errorf("schema %q, want one of %s", s.Schema, strings.Join(Schemas, ", "))
	}
	given := map[string]bool{} // by section, whether its value (the last of its name) is not null
	err = Members(data, func(k, v []byte) {
		var name string
		if json.Unmarshal(k, &name) == nil {
			given[name] = string(v) != "null"
		}
	})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"trace", "config", "runs"} {
		if !given[name] {
			return nil, fmt.Errorf("%s: missing", name)
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	// What was read is now held as this version writes it (the bound under
	// its new name), so that a merge or a rewrite names the right schema.
	s.Schema = SchemaOf(&s)
	return &s, nil
}

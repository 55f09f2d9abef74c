package traces

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// A dataset is a trace partitioned by key: a folder of Parquet files, one
// per part, and a manifest, dataset.json, that says how it was cut. A key
// of hash h (KeyHash) is in part h mod partitions, and every part holds its
// records in the order of the trace they were cut from, so that the parts
// merged by time (ties broken by part number) give every key's requests in
// their order. A shard of n shards reads only its parts when n divides the
// partitions (PartsOf): the keys of part j are those of shard j mod n.
//
// DatasetWriter writes one; DatasetReader reads it back, checking each
// record's part and each part's count against the manifest.

// DatasetFile is the name of a dataset's manifest in its folder.
const DatasetFile = "dataset.json"

// DatasetSchema names the version of the manifest's format.
const DatasetSchema = "ratebench.dataset/v1"

// DatasetHash names the key hash that assigns keys to parts (KeyHash).
const DatasetHash = "fnv1a64-murmur3fmix"

// MaxPartitions is the most parts a dataset has: a reader of the whole
// holds one file open for each.
const MaxPartitions = 1024

// Manifest is the content of dataset.json.
type Manifest struct {
	Schema     string `json:"schema"`
	Hash       string `json:"hash"`
	Partitions int    `json:"partitions"`
	// Parts are the parts in order: Parts[j] holds the keys of hash j mod
	// Partitions.
	Parts []DatasetPart `json:"parts"`
}

// DatasetPart is one file of a dataset.
type DatasetPart struct {
	// File is the part's file name in the dataset's folder.
	File string `json:"file"`
	// Records is how many requests it holds.
	Records int64 `json:"records"`
}

// Records returns the number of requests of the given parts.
func (m *Manifest) Records(parts []int) int64 {
	n := int64(0)
	for _, j := range parts {
		n += m.Parts[j].Records
	}
	return n
}

// PartsOf returns the parts shard i of n reads: those j with j mod n = i
// when n divides the partitions (they hold exactly the keys of the shard),
// else every part (the shard then keeps only its keys of them). n = 0
// means no shard: every part.
func (m *Manifest) PartsOf(i, n int) []int {
	var parts []int
	for j := range m.Partitions {
		if n <= 0 || m.Partitions%n != 0 || j%n == i {
			parts = append(parts, j)
		}
	}
	return parts
}

// partFile is the file name of part j.
func partFile(j int) string { return fmt.Sprintf("part-%05d.parquet", j) }

// IsDataset reports whether path is a dataset's folder: a folder holding a
// manifest.
func IsDataset(path string) bool {
	fi, err := os.Stat(filepath.Join(path, DatasetFile))
	return err == nil && fi.Mode().IsRegular()
}

// ReadManifest reads and checks the manifest of the dataset in dir.
func ReadManifest(dir string) (*Manifest, error) {
	name := filepath.Join(dir, DatasetFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &ParseError{Pos: Position{File: name}, Msg: "not a dataset manifest: " + err.Error()}
	}
	if msg := m.problem(); msg != "" {
		return nil, &ParseError{Pos: Position{File: name}, Msg: msg}
	}
	return &m, nil
}

// problem returns what is wrong with m, or "".
func (m *Manifest) problem() string {
	switch {
	case m.Schema != DatasetSchema:
		return fmt.Sprintf("schema %q, want %q", m.Schema, DatasetSchema)
	case m.Hash != DatasetHash:
		return fmt.Sprintf("keys hashed by %q, want %q", m.Hash, DatasetHash)
	case m.Partitions < 1 || m.Partitions > MaxPartitions:
		return fmt.Sprintf("%d partitions, want 1 to %d", m.Partitions, MaxPartitions)
	case len(m.Parts) != m.Partitions:
		return fmt.Sprintf("%d partitions but %d parts listed", m.Partitions, len(m.Parts))
	}
	for j, p := range m.Parts {
		if p.File != partFile(j) {
			return fmt.Sprintf("part %d is the file %q, want %q", j, p.File, partFile(j))
		}
		if p.Records < 0 {
			return fmt.Sprintf("part %d holds %d records", j, p.Records)
		}
	}
	return ""
}

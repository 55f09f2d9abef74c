package traces

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDataset writes reqs as a dataset of p parts in dir.
func writeDataset(t *testing.T, dir string, p int, reqs []Request) {
	t.Helper()
	w, err := CreateDataset(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// datasetRequests are n requests of 50 keys, many at the same time.
func datasetRequests(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{T: int64(i/3) * 1_000_000, Key: []byte(awkwardKeys[i%len(awkwardKeys)] + string(rune('a'+i%7))), Cost: int64(i%4 + 1)}
	}
	return reqs
}

// mergedOrder is the order a dataset gives reqs: by time, ties by part,
// each key's requests in their order.
func mergedOrder(reqs []Request, p int) []Request {
	out := slices.Clone(reqs)
	part := func(r Request) uint64 { return KeyHash(r.Key) % uint64(p) }
	slices.SortStableFunc(out, func(a, b Request) int {
		if a.T != b.T {
			return int(a.T - b.T)
		}
		return int(part(a)) - int(part(b))
	})
	return out
}

func TestDatasetReadsBackInTimeOrder(t *testing.T) {
	reqs := datasetRequests(3000)
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, 4, reqs)
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Partitions != 4 || len(m.Parts) != 4 || m.Records(m.PartsOf(0, 0)) != 3000 {
		t.Fatalf("manifest %+v", m)
	}
	for j, p := range m.Parts {
		if p.Records == 0 {
			t.Fatalf("part %d is empty: the keys do not spread", j)
		}
	}
	r, err := Open(dir, FormatAuto, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if FormatOf(r) != FormatDataset || r.(*DatasetReader).NumRows() != 3000 {
		t.Fatalf("format %v, %d rows", FormatOf(r), r.(*DatasetReader).NumRows())
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, mergedOrder(reqs, 4))
}

func TestDatasetShardReadsOnlyItsParts(t *testing.T) {
	reqs := datasetRequests(2000)
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, 6, reqs)
	total := 0
	for i := range 3 {
		r, err := OpenDataset(dir, Options{ShardIndex: i, ShardCount: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Parts(), []int{i, i + 3}) {
			t.Fatalf("shard %d/3 reads parts %v", i, r.Parts())
		}
		got, err := readAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want []Request
		for _, q := range reqs {
			if KeyHash(q.Key)%3 == uint64(i) {
				want = append(want, q)
			}
		}
		diffRequests(t, got, mergedOrder(want, 6))
		total += len(got)
	}
	if total != len(reqs) {
		t.Fatalf("the shards read %d requests of %d", total, len(reqs))
	}
	// 4 shards do not divide 6 parts: each reads them all.
	r, err := OpenDataset(dir, Options{ShardIndex: 1, ShardCount: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Parts()) != 6 || r.NumRows() != 2000 {
		t.Fatalf("shard 1/4 reads parts %v, %d rows", r.Parts(), r.NumRows())
	}
}

func TestDatasetReplacesOnlyADataset(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ds")
	writeDataset(t, dir, 2, datasetRequests(100))
	writeDataset(t, dir, 3, datasetRequests(50)) // a dataset is replaced whole
	m, err := ReadManifest(dir)
	if err != nil || m.Partitions != 3 || m.Records(m.PartsOf(0, 0)) != 50 {
		t.Fatalf("replaced dataset: %+v, %v", m, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Fatalf("the replaced dataset holds %d files, want 3 parts and the manifest", len(ents))
	}
	other := filepath.Join(root, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if _, err := CreateDataset(other, 2); err == nil || !strings.Contains(err.Error(), "not a dataset") {
		t.Fatalf("a folder of other files: %v", err)
	}
	if _, err := CreateDataset(filepath.Join(root, "x"), 0); err == nil {
		t.Fatal("0 partitions accepted")
	}
	// An aborted dataset leaves the one before and no temporary folder.
	w, err := CreateDataset(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(Request{T: 1, Key: []byte("k"), Cost: 1})
	w.Abort()
	if m, err := ReadManifest(dir); err != nil || m.Partitions != 3 {
		t.Fatalf("after an abort: %+v, %v", m, err)
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 2 {
		t.Fatalf("left in the parent folder: %v", ents)
	}
	// A refused request fails the writer: nothing is put in place.
	w, _ = CreateDataset(filepath.Join(root, "bad"), 2)
	if err := w.Write(Request{T: 1, Key: []byte("k"), Cost: 0}); err == nil {
		t.Fatal("cost 0 written")
	}
	if err := w.Close(); err == nil {
		t.Fatal("a writer that refused a request closed cleanly")
	}
	if _, err := os.Stat(filepath.Join(root, "bad")); err == nil {
		t.Fatal("a failed dataset was put in place")
	}
}

// TestDatasetDamageIsAnError checks that what the manifest says is checked:
// a missing part, a part of other records, a record in the wrong part, a
// manifest edited by hand or naming a file outside the folder.
func TestDatasetDamageIsAnError(t *testing.T) {
	reqs := datasetRequests(600)
	fresh := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "ds")
		writeDataset(t, dir, 3, reqs)
		return dir
	}
	readErr := func(dir string) error {
		r, err := OpenDataset(dir, Options{})
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = readAll(r)
		return err
	}
	editManifest := func(t *testing.T, dir string, edit func(*Manifest)) {
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		data, _ := json.Marshal(m)
		os.WriteFile(filepath.Join(dir, DatasetFile), data, 0o644)
	}
	cases := []struct {
		name, want string
		damage     func(t *testing.T, dir string)
	}{
		{"missing part", "part-00001.parquet", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "part-00001.parquet")) }},
		{"count", "part-00002.parquet: holds", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Parts[2].Records++ })
		}},
		{"swapped parts", "is in part", func(t *testing.T, dir string) {
			a, b := filepath.Join(dir, "part-00000.parquet"), filepath.Join(dir, "part-00001.parquet")
			os.Rename(a, a+".x")
			os.Rename(b, a)
			os.Rename(a+".x", b)
			editManifest(t, dir, func(m *Manifest) { m.Parts[0].Records, m.Parts[1].Records = m.Parts[1].Records, m.Parts[0].Records })
		}},
		{"outside file", "want \"part-00000.parquet\"", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Parts[0].File = "../../etc/passwd" })
		}},
		{"partitions", "3 parts listed", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Partitions = 4 })
		}},
		{"not json", "not a dataset manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, DatasetFile), []byte("{"), 0o644)
		}},
		{"truncated part", "part-00001.parquet", func(t *testing.T, dir string) {
			name := filepath.Join(dir, "part-00001.parquet")
			data, _ := os.ReadFile(name)
			os.WriteFile(name, data[:len(data)/2], 0o644)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := fresh(t)
			c.damage(t, dir)
			err := readErr(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if err := readErr(t.TempDir()); err == nil || !strings.Contains(err.Error(), DatasetFile) {
		t.Fatalf("an empty folder: %v", err)
	}
	if _, err := Open(t.TempDir(), FormatAuto, Options{}); err == nil || !strings.Contains(err.Error(), "not a dataset") {
		t.Fatalf("Open of a folder that is not a dataset: %v", err)
	}
}

// TestDatasetPartsAreParquetTraces checks that a part is a trace of its
// own, read by any Parquet reader, holding its keys in their order.
func TestDatasetPartsAreParquetTraces(t *testing.T) {
	reqs := datasetRequests(500)
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, 2, reqs)
	r, err := Open(filepath.Join(dir, "part-00001.parquet"), FormatAuto, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var want []Request
	for _, q := range reqs {
		if KeyHash(q.Key)%2 == 1 {
			want = append(want, q)
		}
	}
	diffRequests(t, got, want)
	if !bytes.Equal([]byte(FormatDataset.String()), []byte("dataset")) {
		t.Fatal(FormatDataset.String())
	}
	if f, err := ParseFormat("dataset"); err != nil || f != FormatDataset {
		t.Fatal(f, err)
	}
}

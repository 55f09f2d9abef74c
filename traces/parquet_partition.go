package traces

import "math"

// Reading a Parquet trace in runs split by key (Partitioner). A run holds
// up to pqRunRows rows of one row group's key dictionary (Run.Dict): a
// dictionary-encoded key goes to its part by its entry, whose part and
// hash are found once per entry, and is handed over as the entry (Part.Ref)
// rather than copied. The rows whose columns are pages of plain values
// (and dictionary indexes for the keys) without nulls are read straight
// from the pages' values (fastRows); a row that is not, or that is not
// good (a negative time, a bad cost, a key to check), is read by Scan, as
// every row is when the reader is not partitioned, so that what a run
// holds, and the error it ends with, are what Scan reads.

// pqRunRows is the most rows of a run.
const pqRunRows = 16 << 10

// pqRuns is what a ParquetReader reading in runs keeps.
type pqRuns struct {
	*runPool
	held bool // the current request (Scan's) is the next run's: its key is of another dictionary

	// Per entry of the dictionary dict: 1 + its part (0: not found yet)
	// and its hash.
	dict  uint64
	parts []int32
	hash  []uint64
}

// Partition implements Partitioner: from now on, NextRun hands over the
// requests in runs of n parts, split by of. It returns false, and changes
// nothing, once the reader was scanned.
func (p *ParquetReader) Partition(n int, of PartOf) bool {
	if p.row > 0 || p.done || p.runs != nil || n < 1 {
		return false
	}
	p.runs = &pqRuns{runPool: newRunPool(n, of, p.name, true)}
	return true
}

// NextRun implements Partitioner.
func (p *ParquetReader) NextRun() *Run {
	rs := p.runs
	if rs == nil {
		return nil
	}
	run := rs.get()
	if rs.held {
		rs.held = false
		p.addRow(run)
	}
	for run.n < pqRunRows {
		if p.fastRows(run) {
			continue
		}
		if !p.Scan() {
			break
		}
		if !p.addRow(run) {
			rs.held = true
			break
		}
	}
	if run.n == 0 {
		rs.put(run)
		return nil
	}
	return run.handOut()
}

// addRow adds the current request (Scan's) to run, unless its key is of
// another dictionary than the run's keys (false).
func (p *ParquetReader) addRow(run *Run) bool {
	q, ref := p.req, p.keyRef
	if ref < 0 {
		part, h := p.runs.of(q.Key)
		run.add(q, part, h, p.row, -1)
		return true
	}
	if !p.useDict(run) {
		return false
	}
	part, h := p.entryPart(ref)
	run.add(q, part, h, p.row, ref)
	return true
}

// useDict makes the key column's current dictionary the run's, unless the
// run has keys of another (false).
func (p *ParquetReader) useDict(run *Run) bool {
	gen := p.key.dictGen
	if run.dict == gen {
		return true
	}
	if run.dict != 0 {
		return false
	}
	run.useDict(gen, p.key.entries)
	if rs := p.runs; rs.dict != gen {
		rs.dict = gen
		rs.parts = append(rs.parts[:0], make([]int32, len(p.key.entries))...)
		rs.hash = append(rs.hash[:0], make([]uint64, len(p.key.entries))...)
	}
	return true
}

// entryPart returns the part and hash of entry ref of the current
// dictionary (useDict).
func (p *ParquetReader) entryPart(ref int32) (int, uint64) {
	rs := p.runs
	if rs.parts[ref] == 0 {
		part, h := rs.of(p.key.entries[ref])
		rs.parts[ref], rs.hash[ref] = int32(part)+1, h
	}
	return int(rs.parts[ref]) - 1, rs.hash[ref]
}

// fastRows adds to run the rows of the current row group that the pages
// at hand hold as plain values without nulls, up to the first that is not
// good or the run's end, and reports whether it added any.
func (p *ParquetReader) fastRows(run *Run) bool {
	ts, key, co := &p.ts, &p.key, &p.co
	k := min(p.left, int64(pqRunRows-run.n), int64(ts.n-ts.i), int64(key.n-key.i))
	if p.hasCost {
		k = min(k, int64(co.n-co.i))
		if co.i64 == nil && co.i32 == nil {
			k = 0
		}
	}
	if k <= 0 || ts.i64 == nil || key.idx == nil || p.clock.unit == 0 || !p.useDict(run) {
		return false
	}
	unit := p.clock.unit
	added := int64(0)
	for ; added < k; added++ {
		raw := ts.i64[ts.i]
		if raw < 0 || raw > math.MaxInt64/unit { // the row's error is Scan's to tell
			break
		}
		ref := key.idx[key.i]
		if ref < 0 || int(ref) >= len(key.entries) {
			break
		}
		if !key.fine[ref] {
			if keyProblem(key.entries[ref], p.maxKey) != "" {
				break
			}
			key.fine[ref] = true
		}
		cost := int64(1)
		if p.hasCost {
			switch {
			case co.i32 != nil && p.costUnsign:
				cost = int64(uint32(co.i32[co.i]))
			case co.i32 != nil:
				cost = int64(co.i32[co.i])
			default:
				cost = co.i64[co.i]
			}
			if cost < 1 || cost > MaxCost {
				break
			}
			co.i++
		}
		ts.i++
		key.i++
		p.left--
		p.row++
		part, h := p.entryPart(ref)
		run.add(Request{T: raw * unit, Cost: cost}, part, h, p.row, ref)
	}
	return added > 0
}

package traces

import "math"

// Reading a Parquet trace in runs split by key (Partitioner). A run holds
// up to pqRunRows rows whose keys are all entries of one row group's key
// dictionary (Run.Dict), or all plain values. A key that is an entry goes
// to the part of the entry, found once per entry, and is handed over as
// the entry (Part.Ref) rather than copied. The rows whose columns are pages of plain values
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

	// Per entry of the dictionary dict, the part of its key (1 + part, 0:
	// not found yet).
	dict  uint64
	parts []int32
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

// addRow adds the current request (Scan's) to run, unless its key is not
// of the kind of the run's keys, an entry of the same dictionary or a
// plain value (false).
func (p *ParquetReader) addRow(run *Run) bool {
	q, ref := p.req, p.keyRef
	if ref < 0 {
		if run.dict != 0 {
			return false
		}
		part, h := p.runs.of(q.Key)
		run.add(q, part, h, p.row)
		return true
	}
	if !p.useDict(run) {
		return false
	}
	run.addEntry(q.T, q.Cost, p.entryPart(ref), p.row, ref)
	return true
}

// useDict makes the run's keys entries of the key column's current
// dictionary, unless it has other keys (false).
func (p *ParquetReader) useDict(run *Run) bool {
	gen := p.key.dictGen
	if run.dict == gen {
		return true
	}
	if run.n > 0 {
		return false
	}
	run.useDict(gen, p.key.keys)
	if rs := p.runs; rs.dict != gen {
		rs.dict = gen
		rs.parts = append(rs.parts[:0], make([]int32, p.key.keys.len())...)
	}
	return true
}

// entryPart returns the part of entry ref of the current dictionary
// (useDict).
func (p *ParquetReader) entryPart(ref int32) int {
	e := &p.runs.parts[ref]
	if *e == 0 {
		part, _ := p.runs.of(p.key.keys.at(ref))
		*e = int32(part) + 1
	}
	return int(*e) - 1
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
		if ref < 0 || int(ref) >= key.keys.len() {
			break
		}
		if !key.fine[ref] {
			if keyProblem(key.keys.at(ref), p.maxKey) != "" {
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
		run.addEntry(raw*unit, cost, p.entryPart(ref), p.row, ref)
	}
	return added > 0
}

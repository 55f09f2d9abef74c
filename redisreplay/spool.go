package redisreplay

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"ratebench/traces"
)

// spool is the trace read once and kept on disk for the replay's passes
// (one per algorithm and number of clients): 16 bytes per request (time,
// key id, cost) in a temporary file, and the distinct keys in memory. A
// trace is thus read once, streamed, and never held in memory.
type spool struct {
	f           *os.File
	n           int64    // requests
	keys        []string // key of each id
	ids         map[string]int32
	first       int64 // earliest request time, ns
	last        int64 // latest request time, ns
	costly      int64 // requests with cost != 1
	firstCostly string
}

const spoolRecord = 16

// newSpool reads r to its end into a spool.
func newSpool(r traces.Reader) (*spool, error) {
	f, err := os.CreateTemp("", "ratebench-redis-spool-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
	s := &spool{f: f, ids: map[string]int32{}, first: math.MaxInt64, last: math.MinInt64}
	w := bufio.NewWriterSize(f, 1<<16)
	var rec [spoolRecord]byte
	for r.Scan() {
		req := r.Request()
		id, ok := s.ids[string(req.Key)]
		if !ok {
			if len(s.keys) == math.MaxInt32 {
				s.close()
				return nil, fmt.Errorf("more than %d keys", math.MaxInt32)
			}
			id = int32(len(s.keys))
			k := string(req.Key)
			s.ids[k] = id
			s.keys = append(s.keys, k)
		}
		if req.Cost < 1 || req.Cost > traces.MaxCost {
			s.close()
			return nil, fmt.Errorf("%s: cost %d out of range", r.Pos(), req.Cost)
		}
		if req.Cost != 1 {
			if s.costly == 0 {
				s.firstCostly = fmt.Sprintf("%s: cost %d", r.Pos(), req.Cost)
			}
			s.costly++
		}
		s.first, s.last = min(s.first, req.T), max(s.last, req.T)
		binary.LittleEndian.PutUint64(rec[0:], uint64(req.T))
		binary.LittleEndian.PutUint32(rec[8:], uint32(id))
		binary.LittleEndian.PutUint32(rec[12:], uint32(req.Cost))
		if _, err := w.Write(rec[:]); err != nil {
			s.close()
			return nil, err
		}
		s.n++
	}
	if err := r.Err(); err != nil {
		s.close()
		return nil, err
	}
	if err := w.Flush(); err != nil {
		s.close()
		return nil, err
	}
	s.ids = nil // not needed any more
	return s, nil
}

// scan calls fn for every request in trace order until fn returns false or
// an error.
func (s *spool) scan(fn func(seq, t int64, id int32, cost int64) (bool, error)) error {
	br := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.n*spoolRecord), 1<<16)
	var rec [spoolRecord]byte
	for seq := range s.n {
		if _, err := io.ReadFull(br, rec[:]); err != nil {
			return fmt.Errorf("reading the spooled trace: %w", err)
		}
		t := int64(binary.LittleEndian.Uint64(rec[0:]))
		id := int32(binary.LittleEndian.Uint32(rec[8:]))
		cost := int64(binary.LittleEndian.Uint32(rec[12:]))
		if ok, err := fn(seq, t, id, cost); !ok || err != nil {
			return err
		}
	}
	return nil
}

func (s *spool) close() error { return s.f.Close() }

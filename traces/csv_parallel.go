package traces

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// Parallel reading of CSV traces. Once a CSV reader has read a few records
// (csvSeqRecords) one at a time, and when there is more than one CPU to use,
// it hands the rest of the input to a pipeline:
//
//   - a splitter goroutine reads the input into chunks that end where a
//     record ends, following the quotes from the start of the input as the
//     line reader does (a line break inside a quoted field does not end a
//     record), and counts the lines of each chunk;
//   - worker goroutines parse the chunks, each with a csvParser of its own
//     reading the chunk in memory exactly as the reader would have read it
//     from its buffered input (memLines), into requests and events: the
//     blank lines, the bad records and a last error;
//   - Scan takes the chunks in order and hands out their requests, and runs
//     the events through the reader's own blank line and bad record rules,
//     so that what it returns, in which order, with which lines and errors,
//     is what reading one record at a time returns.
//
// What a chunk cannot hold is read one record at a time again: a record
// longer than Options.MaxLine (the reader refuses it after reading about
// MaxLine bytes of it, and reads through the rest of it without holding
// it), and the records before an I/O error, the reader naming the line it
// was reading when the error came. The splitter then ends the pipeline
// with a chunk of what it read of the record, and Scan reads on from that
// and what follows with the line reader.

// Defaults of the parallel CSV reader.
const (
	csvChunkSize  = 256 << 10 // bytes of a chunk
	csvSeqRecords = 1000      // records read one at a time before the pipeline starts
)

// csvTuning is how a CSV reader reads in parallel; see Options.
type csvTuning struct {
	workers int // worker goroutines; at most 1: no pipeline
	chunk   int // bytes of a chunk
	readMax int // most bytes one read asks for; 0: what the chunk has room for
	after   int // records read one at a time first; < 0: no pipeline
}

func (o Options) csvTuning() csvTuning {
	t := csvTuning{workers: o.csvWorkers, chunk: o.csvChunk, readMax: o.csvRead, after: o.csvAfter}
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	if t.chunk <= 0 {
		t.chunk = csvChunkSize
	}
	switch {
	case t.workers <= 1:
		t.after = -1
	case t.after == 0:
		t.after = csvSeqRecords
	case t.after < 0:
		t.after = 0
	}
	return t
}

// csvChunk is a part of the input, of whole records but for the last one,
// and what a worker made of it.
type csvChunk struct {
	data  []byte
	line  int64 // line where data starts
	lines int   // line ends in data
	last  bool  // data ends the input

	// fallback: data is not parsed but read on by the line reader,
	// followed by rest.
	fallback bool
	rest     io.Reader

	recs   []csvRecord
	events []csvEvent
	arena  []byte // keys that are not slices of data
	ready  chan struct{}

	// run, when the reader reads in runs split by key (Partition), holds
	// the chunk's requests instead of recs; the events' at count them.
	run *Run
}

// csvRecord is a request of a chunk and the line of its record, from the
// chunk's first line.
type csvRecord struct {
	req  Request
	line int32
}

type csvEventKind uint8

const (
	evBlank csvEventKind = iota // a blank line
	evBad                       // a bad record, msg says why
	evFatal                     // an error that stops the reader
)

// csvEvent is what happened in a chunk other than a request, before its
// request number at.
type csvEvent struct {
	at   int
	kind csvEventKind
	line int64
	msg  string
	err  error
}

// csvPipe is the pipeline of a CSV reader reading in parallel.
type csvPipe struct {
	src     io.Reader
	tune    csvTuning
	maxLine int
	skipBad bool
	sep     byte
	runs    *runPool // the reader's when it reads in runs (Partition), else nil

	jobs    chan *csvChunk // to the workers
	ordered chan *csvChunk // to Scan, in input order
	free    chan *csvChunk // back from Scan
	pool    int            // chunks there may be
	made    int            // chunks made (by the splitter)

	done     chan struct{} // closed to stop the goroutines
	stopOnce sync.Once
	exited   chan struct{} // closed when the splitter returns

	mu         sync.Mutex
	reading    bool      // the splitter is in src.Read
	closeLater io.Closer // to close once that read returns

	// Scan's side: the chunk it hands out, its next request and event, and
	// where the requests before the next event end (the fast path of Scan).
	cur      *csvChunk
	i, ev    int
	stop     int
	recs     []csvRecord
	line     int64
	nextLine int64 // the first line of the chunks not yet taken
}

// startPipe hands the rest of the input to a pipeline, from the next line.
// It is called between records, when none is being read through.
func (c *CSVReader) startPipe() {
	p := &csvPipe{src: c.lr.br, tune: c.tune, maxLine: c.lr.max, skipBad: c.bad.skip, sep: c.sep, runs: c.runs,
		pool: c.tune.workers + 2, done: make(chan struct{}), exited: make(chan struct{}),
		nextLine: c.lr.line + 1}
	if p.runs != nil {
		p.pool += runsInUse // the consumer holds some chunks' runs
	}
	p.jobs = make(chan *csvChunk, p.pool)
	p.ordered = make(chan *csvChunk, p.pool)
	p.free = make(chan *csvChunk, p.pool)
	for range c.tune.workers {
		w := &csvWorker{csvParser: csvParser{name: c.name, lr: lineReader{max: c.lr.max, csv: true, sep: c.sep}, clock: c.clock,
			layout: c.layout, maxKey: c.maxKey, sep: c.sep, headerless: c.headerless, nfields: c.nfields, tsCol: c.tsCol, keyCol: c.keyCol,
			costCol: c.costCol, fields: make([][]byte, c.nfields)}}
		w.lr.mem = &w.mem
		go p.work(w)
	}
	go p.split(c.lr.line + 1)
	// A reader dropped without Close stops its goroutines.
	runtime.AddCleanup(c, func(p *csvPipe) { p.shutdown(nil) }, p)
	c.pipe, c.par, c.seqLeft = p, p, -1
}

// shutdown stops the goroutines. With a closer, it closes it once the
// splitter no longer reads: now, or when the read it waits in returns
// (true).
func (p *csvPipe) shutdown(closer io.Closer) (later bool) {
	p.stopOnce.Do(func() { close(p.done) })
	if closer == nil {
		return false
	}
	p.mu.Lock()
	if p.reading {
		p.closeLater = closer
		p.mu.Unlock()
		return true
	}
	p.mu.Unlock()
	<-p.exited
	return false
}

// read reads src into b, unless the pipeline is stopped (ok false).
func (p *csvPipe) read(b []byte) (n int, err error, ok bool) {
	p.mu.Lock()
	if closed(p.done) {
		p.mu.Unlock()
		return 0, nil, false
	}
	p.reading = true
	p.mu.Unlock()
	n, err = p.src.Read(b)
	p.mu.Lock()
	p.reading = false
	cl := p.closeLater
	p.mu.Unlock()
	if cl != nil {
		cl.Close()
		return 0, nil, false
	}
	return n, err, true
}

// get returns a chunk to fill, waiting for Scan to give one back when all
// are in use; nil once the pipeline is stopped.
func (p *csvPipe) get() *csvChunk {
	select {
	case ch := <-p.free:
		return ch
	default:
	}
	if p.made < p.pool {
		p.made++
		ch := &csvChunk{data: make([]byte, 0, p.tune.chunk), ready: make(chan struct{}, 1)}
		if r := p.runs; r != nil {
			ch.run = newRun(r.n, r.file, false, func(*Run) { p.free <- ch })
		}
		return ch
	}
	select {
	case ch := <-p.free:
		return ch
	case <-p.done:
		return nil
	}
}

// send hands ch to Scan, and to the workers unless it is a fallback.
func (p *csvPipe) send(ch *csvChunk) {
	p.ordered <- ch // never blocks: it has room for every chunk
	if ch.fallback {
		ch.ready <- struct{}{}
		return
	}
	p.jobs <- ch
}

// split reads the input into chunks from line on, and sends them.
func (p *csvPipe) split(line int64) {
	defer close(p.exited)
	ch := p.get()
	if ch == nil {
		return
	}
	ch.data = ch.data[:0]
	st := stFieldStart // the quotes at scanned
	scanned := 0       // bytes of ch.data looked at
	recEnd := 0        // where the last whole record in ch.data ends
	empty := 0         // reads in a row that returned nothing
	bom := line == 1   // a byte order mark may start the input, which the parser drops
	for {
		d := ch.data
		limit := recEnd + p.maxLine + 3 // more is a record too long, whatever its end
		if len(d) == cap(d) {           // one record fills the chunk: make room for it
			grown := make([]byte, len(d), min(max(2*cap(d), p.tune.chunk), limit))
			copy(grown, d)
			d = grown
		}
		b := d[len(d):min(cap(d), limit)]
		if p.tune.readMax > 0 && len(b) > p.tune.readMax {
			b = b[:p.tune.readMax]
		}
		n, err, ok := p.read(b)
		if !ok {
			return
		}
		d = d[:len(d)+n]
		ch.data = d
		if n == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		if bom && (len(d) >= len(utf8BOM) || !bytes.HasPrefix(utf8BOM, d)) {
			bom = false
			if bytes.HasPrefix(d, utf8BOM) {
				scanned = len(utf8BOM)
			}
		}
		if !bom {
			var last int
			if st, last = splitScan(d[scanned:], st, p.sep); last >= 0 {
				recEnd = scanned + last
			}
			scanned = len(d)
		}
		switch {
		case err == io.EOF:
			ch.line, ch.lines, ch.last = line, bytes.Count(d, []byte{'\n'}), true
			p.send(ch)
			return
		case err != nil || len(d)-recEnd >= p.maxLine+3:
			if recEnd > 0 {
				if ch = p.cut(ch, recEnd, &line); ch == nil {
					return
				}
			}
			ch.line, ch.lines, ch.fallback, ch.rest = line, 0, true, p.src
			if err != nil {
				ch.rest = errReader{err}
			}
			p.send(ch)
			return
		case recEnd > 0 && (len(d) >= p.tune.chunk || n < len(b)):
			// A short read sends what there is: the next one may wait.
			if ch = p.cut(ch, recEnd, &line); ch == nil {
				return
			}
			scanned, recEnd = len(ch.data), 0
		}
	}
}

// cut sends the records of ch before end as a chunk starting at *line, and
// returns a chunk holding the rest of ch.data (nil once the pipeline is
// stopped).
func (p *csvPipe) cut(ch *csvChunk, end int, line *int64) *csvChunk {
	tail := ch.data[end:]
	ch.data = ch.data[:end]
	ch.line, ch.lines, ch.last = *line, bytes.Count(ch.data, []byte{'\n'}), false
	*line += int64(ch.lines)
	p.send(ch) // the workers and Scan do not touch tail, past ch.data
	next := p.get()
	if next == nil {
		return nil
	}
	if cap(next.data) < len(tail) {
		next.data = make([]byte, 0, max(len(tail), p.tune.chunk))
	}
	next.data = append(next.data[:0], tail...) // tail may be in next.data: append moves it
	return next
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// splitScan advances the quote state st of a record of fields separated by
// sep over b, as scanQuotes of the lines of its records would, a line break
// outside quotes ending a record and starting the next at stFieldStart. It
// returns the state at the end of b and the end of the last record in b,
// or -1.
func splitScan(b []byte, st quoteState, sep byte) (quoteState, int) {
	last := -1
	i := 0
	for i < len(b) {
		switch st {
		case stQuoted:
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return stQuoted, last
			}
			i += j + 1
			st = stQuoteInQuoted
		case stQuoteInQuoted:
			switch b[i] {
			case '"':
				st = stQuoted
			case sep:
				st = stFieldStart
			case '\n':
				st, last = stFieldStart, i+1
			default:
				st = stUnquoted
			}
			i++
		default: // outside quotes, up to the next quote
			j := bytes.IndexByte(b[i:], '"')
			seg := b[i:]
			if j >= 0 {
				seg = seg[:j]
			}
			if k := bytes.LastIndexByte(seg, '\n'); k >= 0 {
				last = i + k + 1
			}
			if len(seg) > 0 {
				if ch := seg[len(seg)-1]; ch == sep || ch == '\n' {
					st = stFieldStart
				} else {
					st = stUnquoted
				}
			}
			if j < 0 {
				return st, last
			}
			i += j + 1
			if st == stFieldStart { // a quote in an unquoted field opens nothing
				st = stQuoted
			}
		}
	}
	return st, last
}

// csvWorker is a worker's parser, reading the chunk in mem.
type csvWorker struct {
	csvParser
	mem memLines
}

// work parses the chunks it is given.
func (p *csvPipe) work(w *csvWorker) {
	for {
		select {
		case ch := <-p.jobs:
			p.parse(w, ch)
			ch.ready <- struct{}{}
		case <-p.done:
			return
		}
	}
}

// parse reads the records of ch as the reader would read them, into its
// requests and events.
func (p *csvPipe) parse(w *csvWorker, ch *csvChunk) {
	w.mem = memLines{data: ch.data, end: io.EOF}
	w.lr.line, w.lr.rest, w.skipping = ch.line-1, false, false
	run := ch.run
	if run != nil {
		run.reset()
	} else if want := ch.lines + 1; cap(ch.recs) < want {
		ch.recs = make([]csvRecord, 0, want+want/4+16)
	}
	ch.recs, ch.events, ch.arena = ch.recs[:0], ch.events[:0], ch.arena[:0]
	at := func() int { // the requests so far
		if run != nil {
			return run.n
		}
		return len(ch.recs)
	}
	for {
		rec, msg, err := w.nextRecord()
		if err != nil {
			if err != io.EOF {
				ch.events = append(ch.events, csvEvent{at: at(), kind: evFatal, line: w.recLine, err: err})
			}
			return
		}
		if msg == "" && len(rec) == 0 {
			ch.events = append(ch.events, csvEvent{at: at(), kind: evBlank, line: w.recLine})
			continue
		}
		if msg == "" {
			if msg = w.parse(rec); msg == "" {
				req := w.req
				if run != nil { // straight into its part, the key copied
					part, h := p.runs.of(req.Key)
					run.add(req, part, h, w.recLine)
					continue
				}
				if !within(req.Key, ch.data) { // in a buffer of w's: copy it
					if cap(ch.arena) < len(ch.data) { // room for every key: no key moves
						ch.arena = make([]byte, 0, len(ch.data))
					}
					off := len(ch.arena)
					ch.arena = append(ch.arena, req.Key...)
					req.Key = ch.arena[off:]
				}
				ch.recs = append(ch.recs, csvRecord{req, int32(w.recLine - ch.line)})
				continue
			}
		}
		ch.events = append(ch.events, csvEvent{at: at(), kind: evBad, line: w.recLine, msg: msg})
		if !p.skipBad { // the reader stops at it
			return
		}
	}
}

// within reports whether s, not empty, is a slice of buf.
func within(s, buf []byte) bool {
	off := cap(buf) - cap(s)
	return len(s) > 0 && off >= 0 && off+len(s) <= len(buf) && &buf[off] == &s[0]
}

// scanPipe is Scan reading from the pipeline, past the fast path.
func (c *CSVReader) scanPipe() bool {
	p := c.par
	for {
		if ch := p.cur; ch != nil {
			for p.ev < len(ch.events) && ch.events[p.ev].at == p.i {
				e := &ch.events[p.ev]
				p.ev++
				c.recLine = e.line
				switch e.kind {
				case evBlank:
					c.blank.add(e.line)
				case evBad:
					if c.blank.n != 0 {
						if err := c.blank.flush(&c.bad, c.name); err != nil {
							return c.stopPipe(err)
						}
					}
					if err, skip := c.bad.add(Position{File: c.name, Line: e.line}, e.msg); !skip {
						return c.stopPipe(err)
					}
				case evFatal:
					return c.stopPipe(e.err)
				}
			}
			if p.i < len(ch.recs) {
				r := &ch.recs[p.i]
				c.recLine = ch.line + int64(r.line)
				if c.blank.n != 0 {
					if err := c.blank.flush(&c.bad, c.name); err != nil {
						return c.stopPipe(err)
					}
				}
				p.stop = len(ch.recs)
				if p.ev < len(ch.events) {
					p.stop = ch.events[p.ev].at
				}
				c.req = r.req
				p.i++
				return true
			}
			p.nextLine = ch.line + int64(ch.lines)
			p.cur, p.recs, p.i, p.stop = nil, nil, 0, 0
			if ch.last {
				return c.stopPipe(nil)
			}
			p.free <- ch // never blocks: it has room for every chunk
		}
		cancel := c.bad.cancel
		if closed(cancel) {
			return c.stopPipe(interruptedAt(c.name, p.nextLine))
		}
		var ch *csvChunk
		select {
		case ch = <-p.ordered:
		case <-cancel:
		}
		if ch != nil {
			select {
			case <-ch.ready:
			case <-cancel:
				ch = nil
			}
		}
		if ch == nil {
			return c.stopPipe(interruptedAt(c.name, p.nextLine))
		}
		if ch.fallback {
			return c.fallBack(ch)
		}
		p.cur, p.i, p.ev, p.stop = ch, 0, 0, 0
		p.recs, p.line = ch.recs, ch.line
	}
}

func interruptedAt(name string, line int64) error {
	l := lineReader{line: line - 1}
	return l.readErr(name, ErrInterrupted)
}

// stopPipe ends the reading with err (nil at the end of the input).
func (c *CSVReader) stopPipe(err error) bool {
	c.par.shutdown(nil)
	c.par, c.err, c.done = nil, err, true
	return false
}

// fallBack reads on one record at a time from the data of ch, then what
// follows it.
func (c *CSVReader) fallBack(ch *csvChunk) bool {
	c.fallBackTo(ch)
	return c.Scan()
}

// fallBackTo ends the pipeline, for the reader to read on one record at a
// time from the data of ch, then what follows it.
func (c *CSVReader) fallBackTo(ch *csvChunk) {
	c.par.shutdown(nil)
	c.par = nil
	c.lr = newLineReader(io.MultiReader(bytes.NewReader(ch.data), ch.rest), c.lr.max)
	c.lr.line, c.lr.csv, c.lr.sep = ch.line-1, true, c.sep
}

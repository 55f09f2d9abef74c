package traces

// Reading a CSV trace in runs split by key (Partitioner). The records read
// one at a time (the first ones, and those a pipeline falls back to) make
// runs of up to seqRunMax requests in the goroutine that calls NextRun. The
// pipeline's workers (csv_parallel.go) write the requests of each chunk
// straight into the parts of the chunk's run, the chunk's events (blank
// lines, bad records, a last error) beside them; NextRun takes the chunks
// in order and runs their events through the reader's own rules, as Scan
// does, passing the requests between two events at once, and cuts the run
// where the reader stops. The chunk goes back to the pipeline once the
// consumer is done with every part of its run.

// runsInUse is how many chunks a pipeline adds to its pool for the runs
// its consumer holds.
const runsInUse = 4

// Partition implements Partitioner: from now on, NextRun hands over the
// requests in runs of n parts, split by of. It returns false, and changes
// nothing, once the reader was scanned.
func (c *CSVReader) Partition(n int, of PartOf) bool {
	if c.scanned || c.runs != nil || n < 1 {
		return false
	}
	c.runs = newRunPool(n, of, c.name, false)
	return true
}

// NextRun implements Partitioner.
func (c *CSVReader) NextRun() *Run {
	if c.runs == nil {
		return nil
	}
	for {
		if c.par != nil {
			if run := c.pipeRun(); run != nil {
				return run.handOut()
			}
			continue
		}
		if c.done {
			return nil
		}
		if c.pipeDue() {
			c.startPipe()
			continue
		}
		run := c.runs.get()
		for run.n < seqRunMax && !c.pipeDue() && c.scanSeq() {
			part, h := c.runs.of(c.req.Key)
			run.add(c.req, part, h, c.recLine)
		}
		if run.n > 0 {
			return run.handOut()
		}
		c.runs.put(run)
	}
}

// pipeRun takes the next chunk of the pipeline and runs its events through
// the reader's rules as scanPipe does, record by record. It returns the
// chunk's run, cut where the reader stopped, or nil when it holds no
// request, the pipeline having then perhaps stopped (c.par nil).
func (c *CSVReader) pipeRun() *Run {
	p := c.par
	cancel := c.bad.cancel
	if closed(cancel) {
		c.stopPipe(interruptedAt(c.name, p.nextLine))
		return nil
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
		c.stopPipe(interruptedAt(c.name, p.nextLine))
		return nil
	}
	if ch.fallback {
		c.fallBackTo(ch)
		return nil
	}
	run := ch.run
	at, err := c.passEvents(ch)
	switch {
	case err != nil:
		run.cut(at)
		c.stopPipe(err)
	case ch.last:
		c.stopPipe(nil)
	default:
		p.nextLine = ch.line + int64(ch.lines)
	}
	if run.n == 0 {
		p.free <- ch // never blocks: it has room for every chunk
		return nil
	}
	return run
}

// passEvents runs the events of ch through the reader's rules, and passes
// the requests between them. It returns the error the reader stops with,
// and how many of the chunk's requests come before it (all of them if
// nil).
func (c *CSVReader) passEvents(ch *csvChunk) (int, error) {
	run := ch.run
	at := 0 // the requests passed
	// pass passes the requests up to end: the pending blank lines before
	// them are bad records.
	pass := func(end int) error {
		if end <= at {
			return nil
		}
		if c.blank.n != 0 {
			c.recLine = run.posOf(at)
			if err := c.blank.flush(&c.bad, c.name); err != nil {
				return err
			}
		}
		at = end
		c.recLine = run.posOf(end - 1)
		return nil
	}
	for i := range ch.events {
		e := &ch.events[i]
		if err := pass(e.at); err != nil {
			return at, err
		}
		c.recLine = e.line
		switch e.kind {
		case evBlank:
			c.blank.add(e.line)
		case evBad:
			if c.blank.n != 0 {
				if err := c.blank.flush(&c.bad, c.name); err != nil {
					return at, err
				}
			}
			if err, skip := c.bad.add(Position{File: c.name, Line: e.line}, e.msg); !skip {
				return at, err
			}
		case evFatal:
			return at, e.err
		}
	}
	if err := pass(run.n); err != nil {
		return at, err
	}
	return run.n, nil
}

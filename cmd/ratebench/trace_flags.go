package main

import (
	"flag"
	"strings"
	"time"

	"ratebench/generators"
	"ratebench/summary"
	"ratebench/traces"
)

// traceFlags are the flags that say how to read a trace.
type traceFlags struct {
	path    string
	format  string
	tsUnit  string
	tsFmt   string // -ts-format
	pattern string // -pattern
	key     string
	columns columnFlags
	skipBad bool
	maxKey  int
	maxLine int
	reorder time.Duration

	// shardIndex and shardCount are the replay's shard (-shard), so that a
	// dataset opens only the parts holding its keys; 0 and 0 without one.
	shardIndex, shardCount int
	// cancel, when closed, stops the reading (the reader's Options.Cancel).
	cancel <-chan struct{}
	// flags is the flag set the reading flags are registered in, for the
	// input flags a summary records (inputArgs).
	flags *flag.FlagSet
}

func (tf *traceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&tf.path, "trace", "", traceFileHelp())
	tf.registerReading(fs)
}

// registerReading registers the flags on how to read, without -trace.
func (tf *traceFlags) registerReading(fs *flag.FlagSet) {
	tf.flags = fs
	fs.StringVar(&tf.format, "format", "auto", readFormatHelp())
	fs.StringVar(&tf.tsUnit, "ts-unit", "auto", "`unit` of integer timestamps: ns, us, ms or s, or auto (from the first one's magnitude; decimal seconds are always seconds)")
	fs.StringVar(&tf.tsFmt, "ts-format", "", "`layout` of the timestamps of CSV, JSON and -pattern: Go's (02.01.2006 03:04 PM) or strftime's when it holds a % (%d.%m.%Y %I:%M %p); UTC unless it has a zone (-0700, %z)")
	fs.StringVar(&tf.pattern, "pattern", "", "regular `expression` that reads each line of -format regex, with the named groups ts and key, and cost if you like: ^(?P<key>\\S+) (?P<ts>\\S+)")
	fs.StringVar(&tf.key, "key", "", "the client identity: a column (CSV, Parquet), field (JSON) or -pattern group name, default key; for logs ip (default), user, path, ip+path or a field of the log (user_agent, cs(User-Agent), capture.req.hdr(0))")
	tf.columns.register(fs)
	fs.BoolVar(&tf.skipBad, "skip-bad", false, "skip bad records instead of stopping; the summary counts them and lists the first")
	fs.IntVar(&tf.maxKey, "max-key", traces.DefaultMaxKey, "longest key accepted, in `bytes`")
	fs.IntVar(&tf.maxLine, "max-line", traces.DefaultMaxLine, "longest line accepted, in `bytes`")
	fs.DurationVar(&tf.reorder, "reorder", 0, "accept requests out of time order by up to this `duration`, sorting them in a bounded buffer (ratebench inspect tells how much a trace needs)")
}

// open opens the trace, returning the reader and its format's name.
func (tf *traceFlags) open() (traces.Reader, string, error) {
	if tf.path == "" {
		return nil, "", usageError{"want FILE (or -trace FILE), the trace to read"}
	}
	f, err := traces.ParseFormat(tf.format)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	unit, err := traces.ParseTSUnit(tf.tsUnit)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	if tf.maxKey < 1 || tf.maxLine < 1 || tf.reorder < 0 {
		return nil, "", usageError{"-max-key and -max-line must be positive, -reorder not negative"}
	}
	opt := traces.Options{TSUnit: unit, TSFormat: tf.tsFmt, Pattern: tf.pattern, Key: tf.key, SkipBad: tf.skipBad,
		MaxKey: tf.maxKey, MaxLine: tf.maxLine, Cancel: tf.cancel, ShardIndex: tf.shardIndex, ShardCount: tf.shardCount}
	if err := tf.columns.apply(&opt); err != nil {
		return nil, "", err
	}
	r, err := traces.Open(tf.path, f, opt)
	if err != nil {
		return nil, "", err
	}
	if tf.reorder > 0 {
		r = traces.Reorder(r, tf.reorder)
	}
	return r, traces.FormatOf(r).String(), nil
}

// genPrefix starts the path a summary records for a generated trace:
// gen:SCENARIO.
const genPrefix = "gen:"

// openOrGenerate opens the trace of -trace, or the generator of genSpec
// (-gen), not both, and returns it with its path and format as a summary
// records them and the name of its default results folder.
func (tf *traceFlags) openOrGenerate(genSpec string) (r traces.Reader, path, format, name string, err error) {
	switch {
	case genSpec != "" && tf.path != "":
		return nil, "", "", "", usageError{"give a trace FILE (or -trace FILE) or -gen, not both"}
	case genSpec != "":
		g, err := generators.New(genSpec, generators.Params{})
		if err != nil {
			return nil, "", "", "", usageError{err.Error()}
		}
		return g, genPrefix + genSpec, "generated", strings.SplitN(genSpec, ":", 2)[0], nil
	}
	if r, format, err = tf.open(); err != nil {
		return nil, "", "", "", err
	}
	return r, tf.path, format, summary.TraceName(tf.path), nil
}

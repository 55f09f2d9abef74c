package main

import (
	"flag"

	"ratebench/traces"
)

// traceFlags are the flags that say how to read a trace.
type traceFlags struct {
	path   string
	format string
	tsUnit string
}

func (tf *traceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&tf.path, "trace", "", "trace `file` (CSV, Parquet or JSON lines)")
	fs.StringVar(&tf.format, "format", "auto", "trace format: csv, parquet, jsonl, or auto (from the extension)")
	fs.StringVar(&tf.tsUnit, "ts-unit", "ns", "unit of integer timestamps: ns, us, ms or s")
}

// open opens the trace, returning the reader and the format's name.
func (tf *traceFlags) open() (traces.Reader, string, error) {
	if tf.path == "" {
		return nil, "", usageError{"-trace FILE is required"}
	}
	f, err := traces.ParseFormat(tf.format)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	unit, err := traces.ParseTSUnit(tf.tsUnit)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	if f == traces.FormatAuto {
		if f, err = traces.FormatFromPath(tf.path); err != nil {
			return nil, "", usageError{err.Error() + " (use -format)"}
		}
	}
	r, err := traces.Open(tf.path, f, traces.Options{TSUnit: unit})
	if err != nil {
		return nil, "", err
	}
	return r, f.String(), nil
}

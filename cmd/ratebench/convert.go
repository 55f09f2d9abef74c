package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"ratebench/traces"
)

const convertSynopsis = "[-format F] [-to F] [-key K] [-skip-bad] [-reorder D] IN OUT"

// runConvert is 'ratebench convert IN OUT': it streams any trace the
// readers take into CSV, Parquet or JSON lines (from OUT's extension, or
// -to), keeping every record.
func runConvert(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("convert", stderr, convertSynopsis)
	var tf traceFlags
	tf.registerReading(fs)
	to := fs.String("to", "auto", "output format: csv, parquet, jsonl, or auto (from OUT's extension)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 2 {
		return usageError{"convert: want IN and OUT"}
	}
	tf.path = fs.Arg(0)
	out := fs.Arg(1)
	f, err := traces.ParseFormat(*to)
	if err != nil {
		return usageError{err.Error()}
	}
	r, _, err := tf.open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := traces.Create(out, f)
	if err != nil {
		return err
	}
	n := int64(0)
	for r.Scan() {
		if err := w.Write(r.Request()); err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", out, err)
		}
		n++
	}
	if err := r.Err(); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	fmt.Fprintf(stdout, "wrote %d requests to %s\n", n, out)
	if sn, _ := skipped(r); sn > 0 {
		fmt.Fprintf(stdout, "skipped %d bad records\n", sn)
	}
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"ratebench/internal/escape"
	"ratebench/traces"
)

const convertSynopsis = "[-format F] [-to F] [-partitions P] [-key K] [-ts T] [-sep S] [-columns C] [-skip-bad] [-reorder D] IN OUT\n\n" +
	"IN (or -trace IN) is the trace read, OUT (or -o OUT) the file written; given one by flag, the argument is the other.\n" +
	"With -partitions P, OUT is a dataset: a folder of P Parquet files split by key, which compare -shard i/n reads only its share of\n" +
	"when n divides P."

// runConvert is 'ratebench convert IN OUT': it streams any trace the
// readers take into CSV, Parquet or JSON lines (from OUT's extension, or
// -to), keeping every record. OUT is written under a temporary name in its
// folder and renamed into place only once every record is written: an
// error or an interrupt leaves an existing OUT as it was. OUT may not be
// IN, by whatever path.
//
// With -partitions P, OUT is a dataset folder (traces.CreateDataset): P
// Parquet parts, each request in the part of its key's hash, so that a
// shard of the replay reads only its own parts. It too is put in place
// only once complete.
func runConvert(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("convert", stderr, convertSynopsis)
	var tf traceFlags
	tf.register(fs)
	var out string
	fs.StringVar(&out, "o", "", "the output `file` OUT")
	to := fs.String("to", "auto", "output format: "+writtenNames()+", or auto (from OUT's extension)")
	partitions := fs.Int("partitions", 0, "write OUT as a dataset: a folder of this `many` Parquet files split by key hash (1 to 1024), for compare -shard to read only its share")
	if err := parseCommand(fs, args, operand{"IN", "the input trace", "trace", &tf.path}, operand{"OUT", "the output file", "o", &out}); err != nil {
		return err
	}
	if tf.path == "" || out == "" {
		return usageError{"convert: want IN and OUT (or -trace IN and -o OUT)"}
	}
	f, err := traces.ParseFormat(*to)
	if err != nil {
		return usageError{err.Error()}
	}
	if out == "-" {
		return usageError{"convert: OUT - is not standard output: convert puts a file (a folder with -partitions) in OUT's place once complete; give a path (./- for one named -)"}
	}
	if flagsSet(fs)["partitions"] && (*partitions < 1 || *partitions > traces.MaxPartitions || (f != traces.FormatAuto && f != traces.FormatParquet)) {
		return usageError{fmt.Sprintf("convert: -partitions wants 1 to %d, and writes Parquet parts (-to auto or parquet)", traces.MaxPartitions)}
	}
	if err := refuseSameFile(tf.path, out); err != nil {
		return err
	}
	// A signal stops the copy, even while the input stalls, and leaves
	// OUT as it was; a second one ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	tf.cancel = ctx.Done()
	r, _, err := tf.open()
	if err != nil {
		return err
	}
	defer r.Close()
	var w output
	if *partitions > 0 {
		w, err = createDatasetOutput(out, *partitions)
	} else {
		w, err = createTraceOutput(out, f)
	}
	if err != nil {
		return err
	}
	n, err := copyTrace(ctx, w, announceReading(r, stderr), out)
	if err != nil {
		w.abort()
		return err
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	if s := unitText(timeUnit(r)); s != "" {
		fmt.Fprintf(stderr, "timestamps in %s\n", s)
	}
	if *partitions > 0 {
		fmt.Fprintf(stdout, "wrote %d requests to %s (%d parts)\n", n, escape.Visible(out), *partitions)
	} else {
		fmt.Fprintf(stdout, "wrote %d requests to %s\n", n, escape.Visible(out))
	}
	if sn, _ := skipped(r); sn > 0 {
		fmt.Fprintf(stdout, "skipped %d bad records\n", sn)
	}
	return nil
}

// copyTrace writes every request of r to w (named out in errors), until
// ctx is done.
func copyTrace(ctx context.Context, w traces.Writer, r traces.Reader, out string) (int64, error) {
	n := int64(0)
	for r.Scan() {
		if err := w.Write(r.Request()); err != nil {
			return n, fmt.Errorf("%s: %w", out, err)
		}
		n++
		if n%1024 == 0 && ctx.Err() != nil {
			return n, fmt.Errorf("interrupted after %d requests: %s is left as it was", n, escape.Visible(out))
		}
	}
	if ctx.Err() != nil {
		return n, fmt.Errorf("interrupted after %d requests: %s is left as it was", n, escape.Visible(out))
	}
	return n, r.Err()
}

// refuseSameFile refuses an output that is the input, by whatever path
// (a symbolic link, a hard link, another spelling of it): writing it
// would destroy the trace as it is read. Standard input ("-") is the same
// file as out if it is redirected from it.
func refuseSameFile(in, out string) error {
	ofi, err := os.Stat(out)
	if err != nil {
		return nil // no output yet (or none that can be read)
	}
	var ifi os.FileInfo
	if in == "-" {
		ifi, err = os.Stdin.Stat()
	} else {
		ifi, err = os.Stat(in)
	}
	if err != nil || !os.SameFile(ifi, ofi) {
		return nil
	}
	what := in
	if in == "-" {
		what = "standard input"
	}
	return usageError{fmt.Sprintf("convert: %s is the input %s, the same file: writing it would destroy the trace; give another OUT", out, what)}
}

package main

import (
	"flag"

	"ratebench/traces"
)

// columnFlags are the flags that say which columns (fields) of a CSV,
// JSON lines or Parquet trace hold what, beside -key, and how a delimited
// file separates them.
type columnFlags struct {
	ts, cost, sep, columns string
}

func (cf *columnFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.ts, "ts", "", "the timestamp's column (CSV, Parquet), field (JSON; a dotted path such as request.time looks into objects) or -pattern group, default ts")
	fs.StringVar(&cf.cost, "cost", "", "the cost's column, field or -pattern group; default cost, which a file may lack (every cost 1), while a column named must be there")
	fs.StringVar(&cf.sep, "sep", "", "field `separator` of CSV: one character, or tab; default tab for .tsv, else found in the header (comma, tab, semicolon or pipe); several characters (' | ', ::) split literally, with no quoting")
	fs.StringVar(&cf.columns, "columns", "", "the column `names` of a CSV file without a header, in order, comma-separated; _ or nothing skips a column (ts,_,key)")
}

// apply sets the options of opt the flags give.
func (cf *columnFlags) apply(opt *traces.Options) error {
	if err := opt.SetSep(cf.sep); err != nil {
		return usageError{"-sep: " + err.Error()}
	}
	opt.TS, opt.Cost, opt.Columns = cf.ts, cf.cost, traces.ParseColumns(cf.columns)
	return nil
}

package traces

import (
	"bytes"
	"fmt"
	"io"
)

// FormatNames lists the values of a -format flag, for messages.
const FormatNames = "csv, parquet, jsonl, accesslog, alb, cloudfront, w3c, haproxy, regex, dataset or auto"

// logKinds names the logs read, for messages.
const logKinds = "NCSA access, ALB, CloudFront, W3C or HAProxy"

// formatLog is what the extension .log says: a log of one of the kinds
// read, which the content tells (sniffLog); the access log when it says
// nothing.
const formatLog Format = -1

// isLog reports whether f is one of the (read only) log formats.
func (f Format) isLog() bool {
	switch f {
	case FormatAccessLog, FormatALB, FormatCloudFront, FormatW3C, FormatHAProxy, FormatRegex:
		return true
	}
	return false
}

// logTitle names a log format in messages: "an ALB access log".
func logTitle(f Format) string {
	switch f {
	case FormatALB:
		return "an ALB access log"
	case FormatCloudFront:
		return "a CloudFront log"
	case FormatW3C:
		return "a W3C extended log"
	case FormatHAProxy:
		return "an HAProxy log"
	case FormatRegex:
		return "a log read by -pattern"
	}
	return "an access log"
}

// errReadOnly is the error of writing a log format.
func errReadOnly(f Format) error {
	return fmt.Errorf("traces: cannot write %s: the format is read only (write csv, jsonl or parquet)", logTitle(f))
}

// newLogReader returns a reader of a log of format f; see open.
func newLogReader(r io.Reader, name string, f Format, opt Options, closer io.Closer) (Reader, error) {
	if f == FormatRegex {
		return newRegexReader(r, name, opt, closer)
	}
	switch f {
	case FormatAccessLog:
		return newAccessLogReader(r, name, opt, closer)
	case FormatALB:
		return newALBReader(r, name, opt, closer)
	case FormatCloudFront, FormatW3C:
		return newW3CReader(r, name, f, opt, closer)
	case FormatHAProxy:
		return newHAProxyReader(r, name, opt, closer)
	}
	return nil, fmt.Errorf("%s: unknown trace format %v", name, f)
}

// refuseLineOptions refuses the options of FormatRegex and of the
// delimited formats that a log of its own form (what) does not take.
func (o Options) refuseLineOptions(what string) error {
	switch {
	case o.Pattern != "":
		return fmt.Errorf("traces: -pattern applies to -format regex, not to %s", what)
	case o.TSFormat != "":
		return fmt.Errorf("traces: -ts-format does not apply to %s, whose times have a form of their own", what)
	}
	return nil
}

// logLineFormat returns the log format a line is shaped like (FormatAuto
// for none): an access log, ALB or HAProxy line. W3C logs are told by their
// directives (w3cDialect).
func logLineFormat(line []byte) Format {
	var al accessLine
	if splitAccessLine(line, &al) == "" {
		return FormatAccessLog
	}
	var fl albLine
	if splitALBLine(line, &fl, albMinFields) == "" {
		return FormatALB
	}
	var hl haproxyLine
	if splitHAProxyLine(line, &hl) == "" {
		return FormatHAProxy
	}
	return FormatAuto
}

var w3cFields = []byte("#Fields:")

// w3cDirectives are the directives that begin a W3C extended log.
var w3cDirectives = [][]byte{[]byte("#Version:"), []byte("#Fields:"), []byte("#Software:"), []byte("#Date:"),
	[]byte("#Start-Date:"), []byte("#End-Date:"), []byte("#Remark:")}

// isW3CDirective reports whether line is one of the directives of a W3C
// extended log.
func isW3CDirective(line []byte) bool {
	for _, d := range w3cDirectives {
		if bytes.HasPrefix(line, d) {
			return true
		}
	}
	return false
}

// w3cDialect tells a CloudFront log from another W3C extended log by the
// first #Fields line among lines: CloudFront's name its x-edge-location.
func w3cDialect(lines [][]byte) Format {
	for _, line := range lines {
		if names, ok := bytes.CutPrefix(line, w3cFields); ok {
			for _, n := range bytes.Fields(names) {
				if string(n) == "x-edge-location" {
					return FormatCloudFront
				}
			}
			break
		}
	}
	return FormatW3C
}

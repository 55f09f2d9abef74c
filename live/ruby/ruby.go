// Package ruby is the live target of rack-attack: the real Rack::Attack
// middleware (Debian's ruby-rack-attack) with one throttle, limit: L and
// period: W in seconds, on an ActiveSupport::Cache::MemoryStore, run by an
// embedded Ruby driver (rack_attack.rb) that reads one request a line on
// its standard input and answers whether the middleware passed it on.
// Time.now is the replay's: the driver sets it to each request's time, so
// rack-attack decides on the trace's clock (Driven).
package ruby

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

//go:embed rack_attack.rb
var driver string

// Requires is what the target needs installed.
const Requires = "the Debian packages ruby, ruby-rack-attack and ruby-activesupport (apt-get install ruby ruby-rack-attack ruby-activesupport)"

// startTimeout bounds the driver's loading (Ruby, Rack, ActiveSupport).
const startTimeout = 30 * time.Second

func init() {
	live.Register(live.Target{
		Name:     "rack-attack",
		About:    "rack-attack's throttle on an ActiveSupport MemoryStore, the real Rack::Attack middleware in a Ruby process whose Time.now the trace drives",
		Requires: Requires,
		Driven:   true,
		Variants: []string{""},
		Version:  Version,
		Model:    Model,
		Start:    Start,
	})
}

func binary(o live.Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return "ruby"
}

// Version names rack-attack, ActiveSupport, Rack and Ruby as the driver
// loads them, or says what to install.
func Version(o live.Options) (string, error) {
	ruby, err := exec.LookPath(binary(o))
	if err != nil {
		return "", fmt.Errorf("live rack-attack: no %s: install %s", binary(o), Requires)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var stderr tail
	cmd := exec.CommandContext(ctx, ruby, "-e", driver, "1", "1000000000") // no input: it loads, says ready and ends
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "ready ")
	if err != nil || !ok || strings.Contains(v, "\n") {
		return "", fmt.Errorf("live rack-attack: %s cannot load rack-attack (%v: %s): install %s", ruby, err, lastLines(stderr.String()+string(out)), Requires)
	}
	return v, nil
}

// Model is rack-attack's model: the product's, with every deviation.
func Model(r algorithms.Rule, o live.Options) (string, error) {
	if o.Variant != "" {
		return "", fmt.Errorf("live rack-attack: no variant %q (it has none)", o.Variant)
	}
	return "rack-attack", nil
}

// Start runs the driver for rule r and waits until it has loaded.
func Start(ctx context.Context, r algorithms.Rule, o live.Options) (live.Session, error) {
	if _, err := Model(r, o); err != nil {
		return nil, err
	}
	if _, err := algorithms.New("rack-attack", r); err != nil {
		return nil, fmt.Errorf("live rack-attack: %w", err)
	}
	ruby, err := exec.LookPath(binary(o))
	if err != nil {
		return nil, fmt.Errorf("live rack-attack: no %s: install %s", binary(o), Requires)
	}
	cmd := exec.Command(ruby, "-e", driver, strconv.FormatInt(r.L, 10), strconv.FormatInt(r.W, 10))
	setParentDeathSignal(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &session{cmd: cmd, stdin: stdin, lines: make(chan string), stop: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = &s.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("live rack-attack: starting %s: %w", ruby, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case s.lines <- sc.Text():
			case <-s.stop: // Close: read on to the end, unheard
			}
		}
		io.Copy(io.Discard, stdout) // after a line too long for the scanner
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	line, err := s.read(ctx)
	if err == nil && !strings.HasPrefix(line, "ready ") {
		err = fmt.Errorf("the driver said %q, not ready", line)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("live rack-attack: starting the driver: %w (is %s installed?)", err, Requires)
	}
	return s, nil
}

// session is one driver process.
type session struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  tail
	lines   chan string   // the driver's answers
	stop    chan struct{} // closed by Close: no one reads lines any more
	exited  chan struct{} // closed once the process has exited and waitErr is set
	waitErr error
	broken  error // set once a request failed: the answers may be out of step

	closeOnce sync.Once
	closeErr  error
}

// read returns the driver's next line.
func (s *session) read(ctx context.Context) (string, error) {
	select {
	case line := <-s.lines:
		return line, nil
	case <-s.exited:
		return "", fmt.Errorf("the Ruby driver exited (%v): %s", s.waitErr, lastLines(s.stderr.String()))
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (s *session) Decide(ctx context.Context, key string, t int64) (bool, int64, error) {
	if s.broken != nil {
		return false, 0, s.broken
	}
	if err := ctx.Err(); err != nil {
		return false, 0, err
	}
	if key == "" || strings.ContainsAny(key, " \r\n") {
		return false, 0, fmt.Errorf("key %q: the driver's lines take a key without blanks", key)
	}
	admit, err := s.ask(ctx, key+" "+strconv.FormatInt(t, 10)+"\n")
	if err != nil {
		s.broken = fmt.Errorf("an earlier request failed: %w", err)
		return false, 0, err
	}
	return admit, t, nil
}

// ask sends one request's line and reads its answer.
func (s *session) ask(ctx context.Context, line string) (bool, error) {
	if _, err := io.WriteString(s.stdin, line); err != nil {
		if _, rerr := s.read(ctx); rerr != nil { // the driver's own error, if it died
			return false, rerr
		}
		return false, err
	}
	answer, err := s.read(ctx)
	if err != nil {
		return false, err
	}
	switch answer {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, fmt.Errorf("the driver answered %q", answer)
}

// Close kills the driver and waits for it; it is safe to call more than
// once.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.broken = errors.New("the session is closed")
		s.stdin.Close()
		if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			s.closeErr = err
		}
		<-s.exited
	})
	return s.closeErr
}

// tail keeps the last 4 KiB written to it: the driver's standard error,
// for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 4096 {
		b.buf = b.buf[len(b.buf)-4096:]
	}
	return len(p), nil
}

func (b *tail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// lastLines returns the last lines of out (at most 3, joined by " | "),
// "(no output)" when there are none.
func lastLines(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}

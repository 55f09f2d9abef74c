package report

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ratebench/summary"
)

// measureScript opens every folded section, then writes into the page what
// a reader at this width would see overflow: the page's scroll width
// against the window's, and the elements (outside a box that scrolls on
// its own, and outside the plots' insides) that stick out of the page.
const measureScript = `<script>
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
var vw = document.documentElement.clientWidth, cut = [];
document.querySelectorAll('main *').forEach(function (e) {
  if ((e.closest('.scroll') && !e.classList.contains('scroll')) || (e.closest('svg') && e.tagName !== 'svg')) return;
  var r = e.getBoundingClientRect(), what = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '');
  if (r.width > 0 && (r.right > vw + 1 || r.left < -1)) {
    cut.push(what + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px: ' + (e.textContent || '').slice(0, 60));
  } else if (e.tagName !== 'svg' && !/auto|scroll/.test(getComputedStyle(e).overflowX) && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
    cut.push(what + ' holds ' + e.scrollWidth + ' px in ' + e.clientWidth + ': ' + (e.textContent || '').slice(0, 60));
  }
});
var fig = document.querySelector('main figure'), wide = [];
document.querySelectorAll('main .scroll').forEach(function (e) {
  if (e.scrollWidth > e.clientWidth + 1) {
    var heads = Array.prototype.map.call(e.querySelectorAll('th'), function (th) { return th.textContent; });
    wide.push({heads: heads, width: e.scrollWidth, room: e.clientWidth});
  }
});
var out = document.createElement('pre');
out.id = 'measured';
out.textContent = JSON.stringify({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, cut: cut.slice(0, 20),
  firstFigure: fig ? {id: fig.id, top: Math.round(fig.getBoundingClientRect().top + window.scrollY)} : null, wideTables: wide});
document.body.appendChild(out);
</script>
`

// browser returns the headless Chromium to render pages with. Without one
// the test fails, unless RATEBENCH_NO_BROWSER=1 says that this machine has
// none on purpose: then the test is skipped, saying so.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("RATEBENCH_NO_BROWSER") == "1" {
		t.Skip("RATEBENCH_NO_BROWSER=1 and no Chromium on this machine: the page is not measured in a browser")
	}
	t.Fatal("the page test needs a headless Chromium (apt-get install -y chromium); RATEBENCH_NO_BROWSER=1 runs the tests without it")
	return ""
}

type measured struct {
	ScrollWidth int      `json:"scrollWidth"`
	InnerWidth  int      `json:"innerWidth"`
	Cut         []string `json:"cut"`
	// FirstFigure is the page's first figure: its id and how far from
	// the page's top it starts, in px.
	FirstFigure *struct {
		ID  string `json:"id"`
		Top int    `json:"top"`
	} `json:"firstFigure"`
	// WideTables are the tables wider than their box, which scroll in it.
	WideTables []wideTable `json:"wideTables"`
}

// wideTable is a table that scrolls in its box: its headings, its width
// and the box's.
type wideTable struct {
	Heads []string `json:"heads"`
	Width int      `json:"width"`
	Room  int      `json:"room"`
}

var measuredRE = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)

// measure renders the page at path in Chromium, width px wide, with every
// section unfolded.
func measure(t *testing.T, chromium, path string, width int) measured {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The report forbids scripts; the copy measured here runs one.
	s := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(page), "")
	s = strings.Replace(s, "</body>", measureScript+"</body>", 1)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "measure.html")
	if err := os.WriteFile(in, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(tmp, "profile"), "--window-size="+itoa(int64(width))+",2000", "--dump-dom", "file://"+in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium at %d px: %v", width, err)
	}
	mm := measuredRE.FindSubmatch(out)
	if mm == nil {
		t.Fatalf("chromium at %d px: the page did not report its measures", width)
	}
	var m measured
	if err := json.Unmarshal([]byte(html.UnescapeString(string(mm[1]))), &m); err != nil {
		t.Fatalf("chromium at %d px: %v", width, err)
	}
	return m
}

// browserPages are the summaries whose pages are measured: the test
// inputs (small is like make compare's default report: one rule, every
// algorithm, both counts and modes) and the committed default mix,
// products, sweep, two-rule (boundary-layered) and Cloudflare results.
var browserPages = []string{
	filepath.Join("testdata", "small.summary.json"),
	filepath.Join("testdata", "sweep.summary.json"),
	filepath.Join("testdata", "distributed.summary.json"),
	filepath.Join("..", "results", "mix", "summary.json"),
	filepath.Join("..", "results", "products", "summary.json"),
	filepath.Join("..", "results", "mix-sweep", "summary.json"),
	filepath.Join("..", "results", "boundary-layered", "summary.json"),
	filepath.Join("..", "results", "cloudflare", "summary.json"),
}

// screenHeight is the height of the first screen the answer's picture
// must start in, with at least pictureInView of it in view.
const screenHeight, pictureInView = 900, 200

// The report reads at 1400 and at 800 px without scrolling sideways and
// without anything cut: wide tables scroll in their own box, plots shrink
// to the page. Its first screen (900 px high) shows the answer as a
// picture, the verdict's sentence above it and the details below: the
// page's first figure is the answer's, and starts high enough for 200 px
// of it to be in view. At 1400 px every decision table fits the page
// without scrolling; where one scrolls in its box (at 800 px), the
// columns the choice rests on come first.
func TestPageFitsInBrowser(t *testing.T) {
	chromium := browser(t)
	for _, path := range browserPages {
		s, err := summary.ReadSummaryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		dir := write(t, s, Options{NoPNG: true})
		for _, width := range []int{1400, 800} {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				t.Parallel()
				m := measure(t, chromium, filepath.Join(dir, HTMLFile), width)
				if m.InnerWidth != width {
					t.Errorf("%s at %d px: the window is %d px wide", name, width, m.InnerWidth)
				}
				if m.ScrollWidth > m.InnerWidth {
					t.Errorf("%s at %d px: the page is %d px wide, it scrolls sideways", name, width, m.ScrollWidth)
				}
				for _, c := range m.Cut {
					t.Errorf("%s at %d px: cut: %s", name, width, c)
				}
				switch f := m.FirstFigure; {
				case f == nil:
					t.Errorf("%s at %d px: no picture", name, width)
				case f.ID != "fig-answer" || f.Top+pictureInView > screenHeight:
					t.Errorf("%s at %d px: the first picture is %s, %d px from the top: want the answer's, within the first %d px", name, width, f.ID, f.Top, screenHeight-pictureInView)
				}
				for _, w := range m.WideTables {
					if len(w.Heads) < 3 || w.Heads[0] != "rank" || w.Heads[1] != "algorithm" {
						continue // not a decision table
					}
					if width >= 1400 {
						t.Errorf("%s at %d px: a decision table %d px wide in %d px: %v", name, width, w.Width, w.Room, w.Heads)
					}
					if w.Heads[2] != "within the default tolerances" && w.Heads[2] != "meets budget" {
						t.Errorf("%s at %d px: a decision table scrolls with its columns %v: want whether each is within the policy third", name, width, w.Heads)
					}
				}
			})
		}
	}
}

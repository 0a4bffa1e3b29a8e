package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is the one table layout of every renderer (reports and comparisons): text columns
// left-aligned, numeric ones right-aligned, two spaces apart in text; the same cells as an HTML table.
type Table struct {
	Head []string
	// Right marks the numeric columns.
	Right []bool
	Rows  [][]string
	// Class, when set, names the HTML class of a cell that stands out (a verdict), "" for none.
	Class func(row, col int) string
	// color, when set, styles the last column's cells (a status word) after alignment.
	color func(string) string
}

// NewTable starts a table with its column heads.
func NewTable(head ...string) *Table {
	return &Table{Head: head, Right: make([]bool, len(head))}
}

// AlignRight marks columns (by index) as numeric.
func (t *Table) AlignRight(cols ...int) *Table {
	for _, c := range cols {
		t.Right[c] = true
	}
	return t
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// widths returns each column's width.
func (t *Table) widths() []int {
	width := make([]int, len(t.Head))
	for _, r := range append([][]string{t.Head}, t.Rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	return width
}

// Fit shortens the text of the given columns (names), longest first, with a "…" in the middle, until
// a line fits width; a name keeps at least 8 characters.
func (t *Table) Fit(width int, cols ...int) {
	const minName = 8
	for {
		ws := t.widths()
		total := 2 * (len(ws) - 1)
		for _, x := range ws {
			total += x
		}
		if total <= width {
			return
		}
		widest := -1
		for _, c := range cols {
			if ws[c] > minName && (widest < 0 || ws[c] > ws[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			return
		}
		limit := max(minName, ws[widest]-(total-width))
		for _, r := range t.Rows {
			r[widest] = shorten(r[widest], limit)
		}
	}
}

// Shorten keeps the start and end of s in n characters: "lmdb-go-b…ed".
func Shorten(s string, n int) string { return shorten(s, n) }

func shorten(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(rs[:head]) + "…" + string(rs[len(rs)-tail:])
}

// Write prints the table as aligned text.
func (t *Table) Write(w io.Writer) {
	width := t.widths()
	line := func(r []string, color bool) {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.Right[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else if color && t.color != nil && c != "" {
				b.WriteString(t.color(c))
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.Head, false)
	for _, r := range t.Rows {
		line(r, true)
	}
}

// WriteHTML prints the table as an HTML table of the given class: heads in lower case, numeric
// cells of class n, a cell that Class names of that class instead.
func (t *Table) WriteHTML(w io.Writer, class string) {
	fmt.Fprintf(w, "<table class=\"%s\">\n<tr>", esc(class))
	for i, h := range t.Head {
		fmt.Fprintf(w, "<th%s>%s</th>", t.htmlClass(-1, i), esc(strings.ToLower(h)))
	}
	fmt.Fprintln(w, "</tr>")
	for ri, row := range t.Rows {
		fmt.Fprint(w, "<tr>")
		for i, c := range row {
			fmt.Fprintf(w, "<td%s>%s</td>", t.htmlClass(ri, i), esc(c))
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</table>")
}

// htmlClass is a cell's class attribute; row -1 is the head.
func (t *Table) htmlClass(row, col int) string {
	if row >= 0 && t.Class != nil {
		if c := t.Class(row, col); c != "" {
			return fmt.Sprintf(" class=\"%s\"", c)
		}
	}
	if t.Right[col] {
		return " class=n"
	}
	return ""
}

// writeSection writes a table of a result's figures after a blank line, its names shortened to
// fit, then its legend; nothing when t is nil (the run measured none).
func writeSection(w io.Writer, t *Table, legend string, st Style) {
	if t == nil {
		return
	}
	fmt.Fprintln(w)
	t.Fit(st.width(), 0, 1)
	t.Write(w)
	fmt.Fprintln(w, wrap(legend, st.width(), ""))
}

// WriteMarkdown prints the table as a GitHub-flavoured Markdown table: numeric columns aligned
// right, a cell that Class names in bold.
func (t *Table) WriteMarkdown(w io.Writer) {
	head := make([]string, len(t.Head))
	aligns := make([]string, len(t.Head))
	for i, h := range t.Head {
		head[i] = MarkdownEscape(h)
		aligns[i] = "---"
		if t.Right[i] {
			aligns[i] = "--:"
		}
	}
	fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(aligns, "|"))
	for ri, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = MarkdownEscape(c)
			if c != "" && t.Class != nil && t.Class(ri, i) != "" {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// MarkdownEscape keeps text from breaking a Markdown table or being read as markup or HTML.
func MarkdownEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", "`", "'", "\n", " ").Replace(s)
}

#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H
/* SwiftPM drops ncursesw.pc's -D_XOPEN_SOURCE=600, so wide-character declarations
   (cchar_t, setcchar, mvadd_wch) must be switched on here, before <ncurses.h>. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <ncurses.h>
#include <term.h>

/* Globals and function-like macros that Swift cannot see, or that Swift 6 strict concurrency
   rejects as shared mutable state, exposed as inline getters. */
static inline WINDOW *vt_stdscr(void) { return stdscr; }
static inline int vt_lines(void) { return LINES; }
static inline int vt_cols(void) { return COLS; }
static inline int vt_colors(void) { return COLORS; }
static inline attr_t vt_a_normal(void) { return A_NORMAL; }
static inline attr_t vt_a_bold(void) { return A_BOLD; }
static inline attr_t vt_a_underline(void) { return A_UNDERLINE; }
static inline attr_t vt_a_dim(void) { return A_DIM; }
static inline attr_t vt_a_reverse(void) { return A_REVERSE; }
static inline int vt_err(void) { return ERR; }
static inline const char *vt_codeset(void) { return nl_langinfo(CODESET); }
/* newterm on the process's own stdout/stdin (stdio globals are shared mutable state to Swift 6).
   Unlike initscr, newterm returns NULL for an unknown TERM instead of exiting. */
static inline SCREEN *vt_newterm(const char *term) { return newterm(term, stdout, stdin); }
/* Columns of one wide character in the current locale (-1: not printable). */
static inline int vt_wcwidth(unsigned int ch) { return wcwidth((wchar_t)ch); }
/* True when the terminal can move the cursor (terminfo cup): full-screen drawing needs it. */
static inline int vt_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}
/* A terminfo string capability (rmkx, rmcup, cnorm, sgr0), or NULL when the terminal has none
   (tigetstr's (char *)-1, "not a string capability", is NULL here too). */
static inline const char *vt_tigetstr(const char *name) {
    char *s = tigetstr((char *)name);
    return s == (char *)-1 ? NULL : s;
}
/* tigetflag takes a non-const char * in ncurses 6.4. */
static inline int vt_tigetflag(const char *name) { return tigetflag((char *)name); }

/* Draws one wide character with attributes and an extended colour pair (pairs above 255
   do not fit COLOR_PAIR(), so the pair goes through setcchar's opts pointer). */
static inline int vt_put_cell(int y, int x, wchar_t ch, attr_t attrs, int pair) {
    cchar_t cc;
    wchar_t text[2] = { ch, 0 };
    if (setcchar(&cc, text, attrs, 0, &pair) == ERR) return ERR;
    return mvadd_wch(y, x, &cc);
}

/* Draws a wide string at (y, x) in the given attributes and extended pair. */
static inline int vt_put_text(int y, int x, const wchar_t *text, int n, attr_t attrs, int pair) {
    attr_set(attrs, 0, &pair);
    int rc = mvaddnwstr(y, x, text, n);
    attr_set(A_NORMAL, 0, NULL);
    return rc;
}

/* Reads one key as a wide character: returns OK (a character in *out), KEY_CODE_YES (a
   KEY_* code in *out) or ERR (nothing pending). get_wch is a macro over wget_wch(stdscr). */
static inline int vt_get_wch(unsigned int *out) {
    wint_t w = 0;
    int rc = wget_wch(stdscr, &w);
    *out = (unsigned int)w;
    return rc;
}
static inline int vt_key_code_yes(void) { return KEY_CODE_YES; }
static inline int vt_key_mouse(void) { return KEY_MOUSE; }
/* KEY_RESIZE, for the key decoder and its tests. */
static inline int vt_key_resize(void) { return KEY_RESIZE; }

/* Mouse reports: button 1 presses and the wheel (buttons 4 and 5), with no click resolution
   delay (mouseinterval 0: double clicks are timed by the caller). The masks are macros whose
   layout changed between ncurses ABIs, so they are only ever named here. */
static inline int vt_mouse_enable(int on) {
    mmask_t wanted = 0;
    if (on) {
        wanted = BUTTON1_PRESSED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
        wanted |= BUTTON5_PRESSED;
#endif
        mouseinterval(0);
    }
    return mousemask(wanted, NULL) != 0 || !on;
}

/* The pending mouse event after KEY_MOUSE: 0 none, 1 button 1 pressed, 4 wheel up, 5 wheel
   down, 2 anything else; *y and *x get its cell. */
static inline int vt_get_mouse(int *y, int *x) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *y = e.y;
    *x = e.x;
    if (e.bstate & BUTTON1_PRESSED) return 1;
    if (e.bstate & BUTTON4_PRESSED) return 4;
#ifdef BUTTON5_PRESSED
    if (e.bstate & BUTTON5_PRESSED) return 5;
#endif
    return 2;
}

#endif

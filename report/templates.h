/*
 * templates.h - the page template of `san report`, built into the
 * library from report/page.html, page.css and page.js by scripts/embed.sh
 * (the generated report/templates.c).
 */
#ifndef SAN_REPORT_TEMPLATES_H
#define SAN_REPORT_TEMPLATES_H

#include <stddef.h>

extern const unsigned char rep_tpl_page_html[];
extern const size_t rep_tpl_page_html_len;
extern const unsigned char rep_tpl_page_css[];
extern const size_t rep_tpl_page_css_len;
extern const unsigned char rep_tpl_page_js[];
extern const size_t rep_tpl_page_js_len;

#endif

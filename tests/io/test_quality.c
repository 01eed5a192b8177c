/* Criterion tests of quality files (io/quality.h): every format the field's tools write, with the
 * scores computed by hand; names as users write them (extensions, paths, CheckM2's names of
 * gzipped files); and the bad files, each refused naming the file and the line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../io/quality.h"

static char path[64];

static const char *write_temp(const char *text)
{
    snprintf(path, sizeof path, "/tmp/tsk-quality-XXXXXX");
    const int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* Reads text as a quality file (it must be accepted) into q. */
static void read_ok(const char *text, tsk_quality *q)
{
    char err[512] = "";
    const char *p = write_temp(text);
    cr_assert_eq(tsk_quality_read(p, q, err, sizeof err), 0, "refused: %s\n%s", err, text);
    unlink(p);
}

/* The score of the genome named name: it must be found. */
static double score_of(const tsk_quality *q, const char *name)
{
    const int64_t e = tsk_quality_find(q, name);
    cr_assert_geq(e, 0, "no score for '%s'", name);
    return q->entry[e].score;
}

Test(quality, name_tab_score)
{
    tsk_quality q;
    read_ok("# scores\nb\t2.5\r\na\t-1e1\n\nc\t0\n", &q);
    cr_assert_eq(q.n, 3);
    cr_assert_eq(q.format, TSK_QUALITY_SCORES);
    cr_assert_eq(score_of(&q, "a"), -10.0);
    cr_assert_eq(score_of(&q, "b"), 2.5);
    cr_assert_eq(tsk_quality_find(&q, "d"), -1);
    cr_assert(isnan(q.entry[0].completeness) && isnan(q.entry[0].contamination));
    tsk_quality_free(&q);
    /* a header line whose score is no number; blanks around fields; a byte order mark */
    read_ok("\xEF\xBB\xBFgenome\tscore\nx \t 7\ny\t8 \n", &q);
    cr_assert_eq(q.n, 2);
    cr_assert_eq(score_of(&q, "x"), 7.0);
    cr_assert_eq(score_of(&q, "y"), 8.0);
    tsk_quality_free(&q);
}

Test(quality, checkm2)
{
    tsk_quality q;
    read_ok("Name\tCompleteness\tContamination\tCompleteness_Model_Used\nbin1\t90.5\t2\tNN\nbin2\t100\t0\tNN\n", &q);
    cr_assert_eq(q.format, TSK_QUALITY_CHECKM2);
    cr_assert_eq(score_of(&q, "bin1"), 80.5);
    cr_assert_eq(score_of(&q, "bin2"), 100.0);
    cr_assert_eq(q.entry[0].completeness, 90.5);
    cr_assert_eq(q.entry[0].contamination, 2.0);
    tsk_quality_free(&q);
    read_ok("Contamination\tName\tCompleteness\n1\tx\t50\n", &q);
    cr_assert_eq(score_of(&q, "x"), 45.0);
    tsk_quality_free(&q);
    /* --allmodels: the completeness of the model CheckM2 used */
    read_ok("Name\tCompleteness_General\tContamination\tCompleteness_Specific\tCompleteness_Model_Used\tNotes\n"
            "s\t80\t1\t90\tNeural Network (Specific Model)\tNone\n"
            "g\t70\t2\t95\tGradient Boost (General Model)\tNone\n",
            &q);
    cr_assert_eq(score_of(&q, "s"), 85.0);
    cr_assert_eq(score_of(&q, "g"), 60.0);
    tsk_quality_free(&q);
}

Test(quality, checkm1_and_drep)
{
    tsk_quality q;
    read_ok("Bin Id\tMarker lineage\t# genomes\t# markers\tCompleteness\tContamination\tStrain heterogeneity\n"
            "bin.3\tk__Bacteria (UID203)\t5449\t104\t97.5\t1.5\t0.0\n",
            &q);
    cr_assert_eq(q.format, TSK_QUALITY_CHECKM1);
    cr_assert_eq(score_of(&q, "bin.3"), 90.0);
    tsk_quality_free(&q);
    read_ok("genome,completeness,contamination\nG1.fna,99,0.5\n\"G2.fa\",50,10\n", &q);
    cr_assert_eq(q.format, TSK_QUALITY_DREP);
    cr_assert_eq(score_of(&q, "G1"), 96.5);
    cr_assert_eq(score_of(&q, "G2"), 0.0);
    tsk_quality_free(&q);
}

/* CheckM2 names bins/bin_1.fna.gz "bin_1.fna"; tsketch names it "bin_1"; users write either, or
 * the path. And the other way round: the file says "gam", the genome came from gam.fsa. */
Test(quality, names_as_users_write_them)
{
    tsk_quality q;
    read_ok("Name\tCompleteness\tContamination\nbin_1.fna\t90\t1\ngam\t80\t0\nbins/c.FASTA.gz\t70\t0\n", &q);
    cr_assert_eq(score_of(&q, "bin_1"), 85.0);
    cr_assert_eq(score_of(&q, "bin_1.fna.gz"), 85.0);
    cr_assert_eq(score_of(&q, "/data/bins/bin_1.fna.gz"), 85.0);
    cr_assert_eq(score_of(&q, "gam.fsa"), 80.0);
    cr_assert_eq(score_of(&q, "gam"), 80.0);
    cr_assert_eq(score_of(&q, "c"), 70.0);
    cr_assert_eq(tsk_quality_find(&q, "bin_2"), -1);
    cr_assert_eq(tsk_quality_find(&q, "gam.1"), -1, "only sequence extensions are dropped");
    tsk_quality_free(&q);
}

Test(quality, bad_files_name_the_line)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"a\t1\nb\tx\n", "line 2"},
        {"a\t1\nb\t1\t2\n", "line 2"},
        {"a\tinf\n", "line 1"},
        {"a\tnan\n", "line 1"},
        {"a 1\n", "line 1: not NAME<TAB>SCORE with a finite number (nor a CheckM2"},
        {"a\t1\n\nb\t2\na\t3\n", "line 4: 'a' is given twice (also line 1)"},
        {"a.fna\t1\na.fa\t2\n", "line 2: 'a.fa' and 'a.fna' (line 1) both name the genome 'a'"},
        {"Name\tCompleteness\tContamination\nx\t50\n", "line 2: not a CheckM2 report line"},
        {"Name\tCompleteness\tContamination\nx\t50\tlots\n", "line 2"},
        {"Name\tCompleteness\tPurity\nx\t50\t1\n", "line 1: a header without the columns"},
        {"genome,completeness\nx,50\n", "line 1: a header without the columns"},
        {"Name\tCompleteness_General\tContamination\nx\t50\t1\n", "line 1: a header without the columns"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tsk_quality q;
        char err[512] = "";
        const char *p = write_temp(bad[i].text);
        cr_expect_eq(tsk_quality_read(p, &q, err, sizeof err), -1, "case %zu accepted", i);
        cr_expect(strstr(err, bad[i].says) && strstr(err, p), "case %zu: '%s' does not say '%s'", i, err, bad[i].says);
        unlink(p);
    }
}

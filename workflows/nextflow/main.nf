#!/usr/bin/env nextflow
/*
 * Genome distances with tsketch: the Nextflow twin of workflows/snakemake/Snakefile, with the same
 * outputs in --outdir: genomes.tsk (one genome sketch per FASTA file, named by the file stem),
 * distances.tsv (all pairs, scattered over --parts jobs with `dist --block i/N` and gathered in
 * order: byte-identical to `tsketch dist --genome genomes.tsk`), nearest.tsv (the 10 nearest
 * genomes of each), genomes.phylip, clusters.tsv and representatives.txt (`tsketch cluster`:
 * species clusters at --cluster_max_dist, 95 % ANI by default, one representative each; its links
 * scattered over --parts jobs too and read back with `cluster --links`: the clusters of one run).
 * Parameters are checked before any task (--batch 0 or --parts 0 stop with an error naming them).
 *
 *   nextflow run workflows/nextflow --genomes genomes/ --outdir results -profile docker
 *   nextflow run workflows/nextflow --genomes genomes/ --outdir results --batch 50 --parts 16 --gpu
 *
 * Needs Nextflow >= 25.04 (topic channels for the versions). Not run by this repository's CI:
 * Nextflow cannot be installed there (docs/workflows.md).
 */
nextflow.enable.dsl = 2

include { TSKETCH_SKETCH                          } from './modules/tsketch/sketch/main'
include { TSKETCH_PASTE                           } from './modules/tsketch/paste/main'
include { TSKETCH_DIST as TSKETCH_DIST_PARTS      } from './modules/tsketch/dist/main'
include { TSKETCH_DIST as TSKETCH_DIST_NEAREST    } from './modules/tsketch/dist/main'
include { TSKETCH_DIST as TSKETCH_DIST_LINKS      } from './modules/tsketch/dist/main'
include { TSKETCH_TRIANGLE                        } from './modules/tsketch/triangle/main'
include { TSKETCH_CLUSTER                         } from './modules/tsketch/cluster/main'
include { CONCATENATE_IN_ORDER                    } from './modules/local/concatenate_in_order'

// Why params.<key> is unusable, or null: checked before any task runs (batch 0 would make no
// batches, parts 0 an empty distances.tsv)
def paramProblem(String key, value) {
    def text = value == null ? '' : value.toString().trim()
    switch (key) {
        case ['batch', 'parts']:
            return (text ==~ /[0-9]+/ && (text as BigInteger) >= 1) ? null : 'must be a whole number >= 1'
        case 'cluster_max_dist':
            return (text.isBigDecimal() && (text as BigDecimal) >= 0 && (text as BigDecimal) <= 1) ? null : 'must be a number in [0, 1]'
        case 'cluster_min_af':
            return (value == null || value == false || text == '' ||
                    (text.isBigDecimal() && (text as BigDecimal) >= 0 && (text as BigDecimal) <= 1)) ? null : 'must be a number in [0, 1]'
        case 'cluster_method':
            return text in ['greedy', 'single'] ? null : 'must be greedy or single'
        case 'cluster_format':
            return text in ['tsv', 'galah', 'cdb', 'wdb'] ? null : 'must be tsv, galah, cdb or wdb'
        case ['cluster_min_completeness', 'cluster_max_contamination', 'cluster_min_length']:
            if (value == null || value == false || text == '') return null
            if (!(text.isBigDecimal() && (text as BigDecimal) >= 0)) return 'must be a number >= 0'
            return key != 'cluster_min_length' && !params.cluster_quality ? 'needs cluster_quality' : null
        case 'cluster_missing_quality':
            return (value == null || value == false || text == '' || text in ['error', 'last', 'drop']) ? null : 'must be error, last or drop'
        case 'cluster_quality':
            return (value == null || value == false || text == '' || file(text).isFile()) ? null : 'no such file'
    }
    return null
}

workflow {
    ['batch', 'parts', 'cluster_max_dist', 'cluster_method', 'cluster_quality', 'cluster_min_af', 'cluster_format',
     'cluster_min_completeness', 'cluster_max_contamination', 'cluster_min_length', 'cluster_missing_quality'].each { key ->
        def why = paramProblem(key, params[key])
        if (why) error("params.${key} = '${params[key]}': ${why}")
    }

    // one genome per file, in file name order (the order of every output), in batches: a GPU
    // job's start-up is paid once per batch, not once per genome
    ch_batches = channel
        .fromPath("${params.genomes}/*", checkIfExists: true)
        // the extensions tsketch drops from a file name to name its genome, in any case
        .filter { it.name ==~ /(?i).*\.(fa|fasta|fna|ffn|fas|fsa|fsa_nt)(\.(gz|bgz|bgzf))?/ }
        .toSortedList { a, b -> a.name <=> b.name }
        .flatMap { files ->
            files.collate(params.batch as int).withIndex().collect { batch, i -> [ [ id: "batch_${i}", batch: i ], batch ] }
        }
    TSKETCH_SKETCH(ch_batches)

    // the batches pasted in order: genomes.tsk
    TSKETCH_PASTE(
        TSKETCH_SKETCH.out.sketch
            .toSortedList { a, b -> a[0].batch <=> b[0].batch }
            .map { list -> [ [ id: 'genomes' ], list.collect { it[1] } ] }
    )
    ch_genomes = TSKETCH_PASTE.out.sketch

    // all pairs in --parts jobs (ext.args: --block part/parts), gathered in part order
    TSKETCH_DIST_PARTS(
        ch_genomes.flatMap { meta, tsk ->
            (1..(params.parts as int)).collect { i -> [ meta + [ id: "distances_${i}", part: i, parts: params.parts as int ], tsk ] }
        }
    )
    CONCATENATE_IN_ORDER(
        TSKETCH_DIST_PARTS.out.tsv
            .toSortedList { a, b -> a[0].part <=> b[0].part }
            .map { list -> [ [ id: 'distances' ], list.collect { it[1] } ] }
    )

    TSKETCH_DIST_NEAREST(ch_genomes)
    TSKETCH_TRIANGLE(ch_genomes)

    // the cluster links in --parts jobs as well (ext.args: -d, --ani for --min-af, --block
    // part/parts), so that no task compares every pair; all parts, each once, give the clusters of
    // one run
    TSKETCH_DIST_LINKS(
        ch_genomes.flatMap { meta, tsk ->
            (1..(params.parts as int)).collect { i -> [ meta + [ id: "links_${i}", part: i, parts: params.parts as int ], tsk ] }
        }
    )
    ch_links = TSKETCH_DIST_LINKS.out.tsv
        .toSortedList { a, b -> a[0].part <=> b[0].part }
        .map { list -> list.collect { it[1] } }

    // species clusters and their representatives (ext.args: -d, --method, --format, --min-af, the filters)
    def quality = params.cluster_quality ? file(params.cluster_quality.toString(), checkIfExists: true) : []
    TSKETCH_CLUSTER(ch_genomes.map { meta, tsk -> [ [ id: 'clusters' ], tsk ] }, ch_links, quality)

    // tool versions, as nf-core pipelines collect them
    channel.topic('versions')
        .unique()
        .map { process, tool, version -> "${process.tokenize(':').last()}:\n  ${tool}: ${version}" }
        .collectFile(name: 'versions.yml', storeDir: "${params.outdir}/pipeline_info", newLine: true, sort: true)
}

// Gathers the parts of a scattered `tsketch dist --block i/N` run: parts 1..N concatenated in
// order are the single run's output byte for byte (docs/distances.md).
process CONCATENATE_IN_ORDER {
    tag "$meta.id"
    label 'process_single'

    conda "conda-forge::coreutils=9.5"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'docker-daemon://tsketch:0.1.0' :
        'tsketch:0.1.0' }"

    input:
    // staged as part_1.tsv, part_2.tsv, ... in the order given
    tuple val(meta), path(parts, stageAs: 'parts/part_*.tsv')

    output:
    tuple val(meta), path("${meta.id}.tsv"), emit: tsv

    script:
    """
    cat ${parts.join(' ')} > ${meta.id}.tsv
    """

    stub:
    """
    touch ${meta.id}.tsv
    """
}

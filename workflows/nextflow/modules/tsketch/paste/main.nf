process TSKETCH_PASTE {
    tag "$meta.id"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'docker-daemon://tsketch:0.1.0' :
        'tsketch:0.1.0' }"

    input:
    tuple val(meta), path(sketches, stageAs: 'in/*')

    output:
    tuple val(meta), path("*.tsk"), emit: sketch
    tuple val("${task.process}"), val('tsketch'), eval("tsketch --version | sed 's/tsketch //'"), emit: versions_tsketch, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    tsketch \\
        paste \\
        $args \\
        ${prefix}.tsk \\
        $sketches
    """

    stub:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo $args
    touch ${prefix}.tsk
    """
}

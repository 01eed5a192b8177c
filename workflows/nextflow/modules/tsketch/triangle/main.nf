process TSKETCH_TRIANGLE {
    tag "$meta.id"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'docker-daemon://tsketch:0.1.0' :
        'tsketch:0.1.0' }"

    input:
    tuple val(meta), path(sketches)

    output:
    tuple val(meta), path("*.phylip"), emit: phylip
    tuple val("${task.process}"), val('tsketch'), eval("tsketch --version | sed 's/tsketch //'"), emit: versions_tsketch, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    tsketch \\
        triangle \\
        $args \\
        -p $task.cpus \\
        $sketches \\
        -o ${prefix}.phylip
    """

    stub:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo $args
    touch ${prefix}.phylip
    """
}

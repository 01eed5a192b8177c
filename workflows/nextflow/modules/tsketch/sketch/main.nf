process TSKETCH_SKETCH {
    tag "$meta.id"
    label 'process_medium'
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
        'docker-daemon://tsketch:0.1.0' :
        'tsketch:0.1.0' }"

    input:
    tuple val(meta), path(sequences)

    output:
    tuple val(meta), path("*.tsk"), emit: sketch
    tuple val("${task.process}"), val('tsketch'), eval("tsketch --version | sed 's/tsketch //'"), emit: versions_tsketch, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    // a task given an accelerator (label process_gpu, see nextflow.config) must get its GPU
    def device = task.ext.device ?: (task.accelerator ? 'cuda' : 'auto')
    // staged names keep the user's file names (spaces and all): each quoted for the shell
    def quoted = [sequences].flatten().collect { f -> "'" + f.toString().replace("'", "'\\''") + "'" }.join(' ')
    """
    tsketch \\
        sketch \\
        $args \\
        -p $task.cpus \\
        --device $device \\
        $quoted \\
        -o ${prefix}.tsk
    """

    stub:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo $args
    touch ${prefix}.tsk
    """
}
